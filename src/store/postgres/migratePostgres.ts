import type pg from "pg";
import type { JournalSealer } from "../../journal/createJournalSealer.js";
import { sealAllRows } from "./authenticTablePg.js";
import { ensureJournalHeadPg } from "./ensureJournalHeadPg.js";
import { createPgTx } from "./pgContext.js";
import { SchemaTooNewError } from "../storeErrors.js";
import { describeDatabaseUrl, translateConnectionError } from "./postgresConnection.js";
import type { PostgresMigration } from "./postgresMigrations.js";

/** Any number, the same in every errand: the advisory lock that lets one process at a time migrate a database. */
const MIGRATION_LOCK = 4_242_015;

/**
 * Brings the database (its current schema: public, or the search_path the URL sets) up to the
 * newest migration this errand knows, in one transaction under an advisory lock, so processes
 * opening a fresh database at once apply each migration exactly once and a crash leaves all or
 * nothing. A schema recorded at a higher version than `migrations` knows is refused before
 * anything runs. Also creates the journal head when there is none, or converts a journal written
 * before per-operation chains (ensureJournalHeadPg). Returns the schema version.
 */
export async function migratePostgres(
  pool: pg.Pool,
  migrations: readonly PostgresMigration[],
  sealer: JournalSealer,
  connectionString: string,
  schema: string | undefined,
): Promise<number> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw translateConnectionError(error, connectionString);
  }
  const where = describeDatabaseUrl(connectionString) + (schema === undefined ? "" : ` (schema ${schema})`);
  const supported = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  let failed = false;
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    if (schema !== undefined) await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_ms BIGINT NOT NULL)");
    const found = Number((await client.query<{ v: number | null }>("SELECT max(version) AS v FROM schema_migrations")).rows[0]?.v ?? 0);
    if (found > supported) throw new SchemaTooNewError(found, supported, where);
    const applied = new Set((await client.query<{ version: number }>("SELECT version FROM schema_migrations")).rows.map((r) => Number(r.version)));
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (applied.has(migration.version)) continue;
      await client.query(migration.sql);
      for (const table of migration.authenticates ?? []) await sealAllRows(client, sealer, table);
      await client.query("INSERT INTO schema_migrations (version, name, applied_ms) VALUES ($1, $2, (extract(epoch FROM now()) * 1000)::bigint)", [
        migration.version,
        migration.name,
      ]);
    }
    await ensureJournalHeadPg(createPgTx(client, { sealer, clock: undefined, refusals: new Map(), rowRefusals: new Map() }, undefined));
    await client.query("COMMIT");
    return Math.max(found, supported);
  } catch (error) {
    failed = true;
    await client.query("ROLLBACK").catch(() => undefined);
    throw translateConnectionError(error, connectionString);
  } finally {
    client.release(failed);
  }
}
