// The libSQL store's schema (libsqlSchema.ts) is the SQLite store's final schema written out whole
// instead of replayed migration by migration: the same text in two places. This pins the two
// together, so a new SQLite migration without its libSQL version (or the reverse) fails here: every
// table, column (type, NOT NULL, key, default) and index the same, but for the differences listed.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { createJournalSealer } from "../../../src/journal/createJournalSealer.js";
import { createLibsqlSchema } from "../../../src/store/libsql/createLibsqlSchema.js";
import { openLibsqlClient } from "../../../src/store/libsql/openLibsqlClient.js";
import { openSqliteStore } from "../../../src/store/sqlite/openSqliteStore.js";
import { openSqliteDatabase } from "../../../src/store/sqlite/sqliteBinding.js";

const scratch = mkdtempSync(join(tmpdir(), "errand-libsql-schema-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** What each backend has that the other does not, and why. */
const ONLY_SQLITE = {
  // Its migrations' own record; libSQL records its version in libsql_schema.
  schema_migrations: true,
  // Created by an early migration and never written by any store; libSQL leaves it out.
  attempts: true,
};
const ONLY_LIBSQL = { libsql_schema: true, batch_guard: true };
/** journal_head.format: SQLite's migration added it with DEFAULT 1 for rows already there; libSQL always writes it. */
const COLUMN_DIFFERENCES = new Set(["journal_head.format:default"]);

function shapeOf(path: string): { tables: Map<string, Map<string, string>>; indexes: Map<string, string> } {
  const db = openSqliteDatabase(path);
  try {
    const tables = new Map<string, Map<string, string>>();
    for (const { name } of db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all()) {
      const columns = new Map<string, string>();
      for (const c of db.prepare<[], { name: string; type: string; notnull: number; pk: number; dflt_value: unknown }>(`PRAGMA table_info(${name})`).all()) {
        columns.set(c.name, JSON.stringify({ type: c.type, notnull: c.notnull, pk: c.pk, default: c.dflt_value }));
      }
      tables.set(name, columns);
    }
    const indexes = new Map<string, string>();
    for (const i of db
      .prepare<[], { name: string; sql: string | null }>("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%'")
      .all()) {
      indexes.set(i.name, (i.sql ?? "").replace(/\s+/g, " ").replace(/IF NOT EXISTS /i, ""));
    }
    return { tables, indexes };
  } finally {
    db.close();
  }
}

test("the libSQL schema is the SQLite store's final schema: the same tables, columns and indexes but for the differences listed", async () => {
  const sqlitePath = join(scratch, "sqlite.db");
  await openSqliteStore({ path: sqlitePath, busyTimeoutMs: 1_000, sealer: createJournalSealer(randomBytes(32)) }).close();
  const libsqlPath = join(scratch, "libsql.db");
  const client = await openLibsqlClient({ url: `file:${libsqlPath}` });
  try {
    await createLibsqlSchema(client, "test database", Date.now());
  } finally {
    client.close?.();
  }
  const sqlite = shapeOf(sqlitePath);
  const libsql = shapeOf(libsqlPath);

  assert.deepEqual([...sqlite.tables.keys()].filter((t) => !libsql.tables.has(t)).sort(), Object.keys(ONLY_SQLITE).sort(), "tables only SQLite has");
  assert.deepEqual([...libsql.tables.keys()].filter((t) => !sqlite.tables.has(t)).sort(), Object.keys(ONLY_LIBSQL).sort(), "tables only libSQL has");
  const differences: string[] = [];
  for (const [table, columns] of sqlite.tables) {
    const other = libsql.tables.get(table);
    if (other === undefined) continue;
    for (const name of new Set([...columns.keys(), ...other.keys()])) {
      const a = columns.get(name);
      const b = other.get(name);
      if (a === b) continue;
      if (a === undefined || b === undefined) {
        differences.push(`${table}.${name}: ${a === undefined ? "only libSQL" : "only SQLite"}`);
        continue;
      }
      for (const key of ["type", "notnull", "pk", "default"] as const) {
        if ((JSON.parse(a) as Record<string, unknown>)[key] !== (JSON.parse(b) as Record<string, unknown>)[key]) differences.push(`${table}.${name}:${key}`);
      }
    }
  }
  assert.deepEqual(differences.sort(), [...COLUMN_DIFFERENCES].sort(), "column differences");
  assert.deepEqual([...libsql.indexes.entries()].sort(), [...sqlite.indexes.entries()].sort(), "indexes");
});
