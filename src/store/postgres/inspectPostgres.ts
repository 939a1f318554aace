import type { JournalSealer } from "../../journal/createJournalSealer.js";
import { AUTHENTIC_TABLES, unauthenticIn } from "../rows/authenticRows.js";
import type { DatabaseFacts } from "../sqlite/inspectDatabase.js";
import { createPostgresPool, translateConnectionError } from "./postgresConnection.js";
import { POSTGRES_SCHEMA_VERSION } from "./postgresMigrations.js";

/**
 * What `errand doctor` reads from the PostgreSQL database ERRAND_DATABASE_URL names, in one
 * read-only transaction: nothing is migrated or written, and no journal head is created. A database
 * errand never migrated has schema 0. Connection failures come back as store_unavailable. With
 * `sealer`, every row that grants authority is checked against its MAC.
 */
export async function inspectPostgres(connectionString: string, sealer?: JournalSealer): Promise<DatabaseFacts> {
  const pool = createPostgresPool({ connectionString, max: 1 });
  try {
    const client = await pool.connect();
    try {
      await client.query("BEGIN READ ONLY");
      const has = async (table: string) => (await client.query<{ t: string | null }>("SELECT to_regclass($1)::text AS t", [table])).rows[0]?.t !== null;
      const schemaVersion = (await has("schema_migrations"))
        ? Number((await client.query<{ v: number | null }>("SELECT max(version) AS v FROM schema_migrations")).rows[0]?.v ?? 0)
        : 0;
      const ownerPasswordSet =
        (await has("owner_secret")) && Number((await client.query<{ n: number }>("SELECT count(*) AS n FROM owner_secret")).rows[0]?.n ?? 0) > 0;
      const breakers = (await has("provider_breakers"))
        ? (await client.query<{ provider: string; state: string }>("SELECT provider, state FROM provider_breakers ORDER BY provider")).rows
        : [];
      const keyId = (await has("journal_head"))
        ? (await client.query<{ key_id: string }>("SELECT key_id FROM journal_head WHERE id = 1")).rows[0]?.key_id
        : undefined;
      const keyMatchesJournal = sealer === undefined || keyId === undefined ? null : sealer.macEquals(sealer.keyId, keyId);
      let unauthenticRows: DatabaseFacts["unauthenticRows"] = null;
      if (sealer !== undefined && keyMatchesJournal !== false && schemaVersion === POSTGRES_SCHEMA_VERSION) {
        unauthenticRows = [];
        for (const table of AUTHENTIC_TABLES)
          unauthenticRows.push(...unauthenticIn(sealer, table, (await client.query<Record<string, unknown>>(`SELECT * FROM ${table.table}`)).rows));
      }
      await client.query("COMMIT");
      return { integrity: "ok", schemaVersion, supportedVersion: POSTGRES_SCHEMA_VERSION, ownerPasswordSet, breakers, unauthenticRows, keyMatchesJournal };
    } finally {
      client.release();
    }
  } catch (error) {
    throw translateConnectionError(error, connectionString);
  } finally {
    await pool.end();
  }
}
