import { SchemaTooNewError } from "../storeErrors.js";
import type { LibsqlClientLike } from "./LibsqlClientLike.js";
import { statement } from "./LibsqlClientLike.js";
import { LIBSQL_SCHEMA, LIBSQL_SCHEMA_VERSION } from "./libsqlSchema.js";
import { queryRow, queryRows } from "./libsqlRows.js";

async function tablesPresent(client: LibsqlClientLike): Promise<Set<string>> {
  const rows = await queryRows<{ name: string }>(client, "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('libsql_schema', 'operations')");
  return new Set(rows.map((r) => r.name));
}

async function recordedVersion(client: LibsqlClientLike, where: string): Promise<number> {
  const version = (await queryRow<{ v: number | null }>(client, "SELECT max(version) AS v FROM libsql_schema"))?.v ?? 0;
  if (version > LIBSQL_SCHEMA_VERSION) throw new SchemaTooNewError(version, LIBSQL_SCHEMA_VERSION, where);
  return version;
}

/**
 * Brings the database to the schema this errand writes and returns its version: a new database gets
 * the whole schema and its version row in one batch (all or nothing, so two processes creating it at
 * once leave one schema: the second's batch fails and it finds the first's). A database recorded at
 * a newer version is refused; one holding errand tables it did not create (an errand SQLite database
 * made by its migrations) is refused too, rather than adopted unchecked.
 */
export async function createLibsqlSchema(client: LibsqlClientLike, where: string, nowMs: number): Promise<number> {
  const present = await tablesPresent(client);
  if (present.has("libsql_schema")) return recordedVersion(client, where);
  if (present.has("operations")) {
    throw new Error(
      `The database ${where} holds errand tables that errand's libSQL store did not create (an errand SQLite database?); open it with the SQLite store, or give the libSQL store a new database.`,
    );
  }
  const create = [
    ...LIBSQL_SCHEMA.map((sql) => statement(sql)),
    statement("INSERT INTO libsql_schema (version, name, applied_ms) VALUES (?, ?, ?)", LIBSQL_SCHEMA_VERSION, "the whole schema", nowMs),
  ];
  try {
    await client.batch(create, "write");
    return LIBSQL_SCHEMA_VERSION;
  } catch (error) {
    // Another process created it a moment ago: its schema stands, this batch rolled back whole.
    if ((await tablesPresent(client)).has("libsql_schema")) return recordedVersion(client, where);
    throw error;
  }
}
