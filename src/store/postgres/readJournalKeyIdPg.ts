import { createPostgresPool, translateConnectionError } from "./postgresConnection.js";

/**
 * The key id the journal head of the PostgreSQL database names, read-only (no migration runs);
 * undefined when errand's schema or its journal is not there yet.
 */
export async function readJournalKeyIdPg(connectionString: string, schema?: string): Promise<string | undefined> {
  const pool = createPostgresPool({ connectionString, max: 1, ...(schema === undefined ? {} : { schema }) });
  try {
    if ((await pool.query<{ t: string | null }>("SELECT to_regclass('journal_head')::text AS t")).rows[0]?.t === null) return undefined;
    return (await pool.query<{ key_id: string }>("SELECT key_id FROM journal_head WHERE id = 1")).rows[0]?.key_id;
  } catch (error) {
    throw translateConnectionError(error, connectionString);
  } finally {
    await pool.end();
  }
}
