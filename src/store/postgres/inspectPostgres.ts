import type { DatabaseFacts } from "../DatabaseFacts.js";
import { createPostgresPool, translateConnectionError } from "./postgresConnection.js";
import { POSTGRES_SCHEMA_VERSION } from "./postgresMigrations.js";

/**
 * The facts of a PostgreSQL store for `errand doctor`, read in one short session with plain
 * SELECTs: nothing is migrated, locked or written. A server that does not answer throws errand's
 * store_unavailable error naming the setting. A database errand never migrated reads as schema 0.
 */
export async function inspectPostgres(connectionString: string, schema?: string): Promise<DatabaseFacts> {
  const pool = createPostgresPool({ connectionString, max: 1, ...(schema === undefined ? {} : { schema }) });
  try {
    const client = await pool.connect().catch((error: unknown) => {
      throw translateConnectionError(error, connectionString);
    });
    try {
      const has = async (table: string): Promise<boolean> => (await client.query<{ found: string | null }>("SELECT to_regclass($1) AS found", [table])).rows[0]?.found != null;
      const schemaVersion = (await has("schema_migrations")) ? Number((await client.query<{ v: number | null }>("SELECT max(version) AS v FROM schema_migrations")).rows[0]?.v ?? 0) : 0;
      const ownerPasswordSet = (await has("owner_secret")) && Number((await client.query<{ n: number }>("SELECT count(*) AS n FROM owner_secret")).rows[0]?.n ?? 0) > 0;
      const breakers = (await has("provider_breakers")) ? (await client.query<{ provider: string; state: string }>("SELECT provider, state FROM provider_breakers ORDER BY provider")).rows : [];
      return { integrity: "ok", schemaVersion, supportedVersion: POSTGRES_SCHEMA_VERSION, ownerPasswordSet, breakers };
    } finally {
      client.release();
    }
  } finally {
    await pool.end();
  }
}
