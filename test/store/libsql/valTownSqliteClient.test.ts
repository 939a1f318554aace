// The libSQL store's client on Val Town's std/sqlite (valTownSqliteClient) over a std/sqlite stand-in
// (test/fixtures/valTownSqliteStandIn.ts) and over @libsql/client itself (what the val-scoped
// std/sqlite is): rows arrive column-named with integers as numbers, a batch whose guard fails rolls
// back whole, what JSON cannot carry is refused before it is sent, and a malformed answer is refused.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "node:test";
import { createClient } from "@libsql/client";
import { applyGuarded, BatchConflict, guard } from "../../../src/store/libsql/batchGuard.js";
import { createLibsqlSchema } from "../../../src/store/libsql/createLibsqlSchema.js";
import type { LibsqlClientLike } from "../../../src/store/libsql/LibsqlClientLike.js";
import { statement } from "../../../src/store/libsql/LibsqlClientLike.js";
import { LIBSQL_SCHEMA_VERSION } from "../../../src/store/libsql/libsqlSchema.js";
import { queryRow, queryRows } from "../../../src/store/libsql/libsqlRows.js";
import type { ValTownSqlite, ValTownSqliteResult, ValTownSqliteStatement } from "../../../src/store/libsql/valTownSqliteClient.js";
import { valTownSqliteClient, ValTownSqliteShapeError } from "../../../src/store/libsql/valTownSqliteClient.js";
import { openValTownSqliteStandIn } from "../../fixtures/valTownSqliteStandIn.js";
import type { StdSqliteStandIn } from "../../fixtures/valTownSqliteStandIn.js";

async function withStandIn(body: (client: LibsqlClientLike, sqlite: StdSqliteStandIn, url: string) => Promise<void>): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), "errand-valtown-sqlite-"));
  const url = pathToFileURL(join(home, "errand.db")).href;
  const standIn = await openValTownSqliteStandIn({ url });
  try {
    await body(valTownSqliteClient(standIn.sqlite), standIn.sqlite, url);
  } finally {
    standIn.close();
    rmSync(home, { recursive: true, force: true });
  }
}

/** A std/sqlite that answers with `answer` and records what it was sent. */
function fakeSqlite(answer: (statements: ValTownSqliteStatement[]) => unknown): { sqlite: ValTownSqlite; sent: ValTownSqliteStatement[][] } {
  const sent: ValTownSqliteStatement[][] = [];
  const sqlite: ValTownSqlite = {
    execute: async (s) => {
      sent.push([s]);
      return ((await Promise.resolve(answer([s]))) as ValTownSqliteResult[])[0] as ValTownSqliteResult;
    },
    batch: async (s) => {
      sent.push(s);
      return (await Promise.resolve(answer(s))) as ValTownSqliteResult[];
    },
  };
  return { sqlite, sent };
}

const heldResult = (id: string) => statement("INSERT INTO held_results (operation_id, attempt, sealed, expires_ms) VALUES (?, 1, 'x', 0)", id);
const count = async (client: LibsqlClientLike, table: string) => (await queryRow<{ n: number }>(client, `SELECT count(*) AS n FROM ${table}`))?.n;

test("valTownSqliteClient: the wire's array rows become column-named rows, integers stay numbers, lastInsertRowid a bigint", async () => {
  await withStandIn(async (client, sqlite) => {
    await client.execute(statement("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, n INTEGER, r REAL, note TEXT)"));
    const inserted = await client.execute(statement("INSERT INTO t (name, n, r, note) VALUES (?, ?, ?, ?)", "a", 1_767_225_600_000, 1.5, null));
    assert.equal(inserted.rowsAffected, 1);
    assert.equal(inserted.lastInsertRowid, 1n);
    const wire = await sqlite.execute({ sql: "SELECT id, name, n FROM t", args: [] });
    assert.deepEqual(wire.rows, [[1, "a", 1_767_225_600_000]], "the stand-in answers with array rows, as std/sqlite's HTTP API does");
    assert.equal(typeof wire.lastInsertRowid === "string" || wire.lastInsertRowid === null, true);
    const result = await client.execute(statement("SELECT id, name, n, r, note FROM t WHERE id = ?", 1n));
    assert.deepEqual(result.columns, ["id", "name", "n", "r", "note"]);
    assert.deepEqual(result.rows, [{ id: 1, name: "a", n: 1_767_225_600_000, r: 1.5, note: null }]);
    assert.equal(result.lastInsertRowid, undefined);
    assert.deepEqual(await queryRows(client, "SELECT name FROM t WHERE n > ?", 0), [{ name: "a" }]);
  });
});

test("valTownSqliteClient: @libsql/client's own results (the val-scoped std/sqlite) read the same", async () => {
  const home = mkdtempSync(join(tmpdir(), "errand-valtown-sqlite-"));
  const libsql = createClient({ url: pathToFileURL(join(home, "errand.db")).href });
  try {
    const client = valTownSqliteClient(libsql);
    await client.batch([statement("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)"), statement("INSERT INTO t (name) VALUES (?)", "b")], "write");
    const [rows] = await client.batch([statement("SELECT id, name, id AS id FROM t")], "read");
    assert.deepEqual(rows?.rows, [{ id: 1, name: "b" }]);
    assert.deepEqual(Object.keys(rows?.rows[0] ?? {}), ["id", "name"], "a row holds its column names only, not @libsql/client's indexes");
  } finally {
    libsql.close();
    rmSync(home, { recursive: true, force: true });
  }
});

test("valTownSqliteClient: a batch whose guard fails rolls back whole through std/sqlite, and applyGuarded reports the conflict", async () => {
  await withStandIn(async (client, _sqlite, url) => {
    assert.equal(await createLibsqlSchema(client, url, 0), LIBSQL_SCHEMA_VERSION);
    await assert.rejects(
      client.batch([heldResult("before"), guard("EXISTS (SELECT 1 FROM held_results WHERE operation_id = ?)", "absent"), heldResult("after")], "write"),
      (error: Error) => error.message.includes("batch_guard_holds"),
    );
    assert.equal(await count(client, "held_results"), 0, "the write before the failing guard was rolled back");
    assert.equal(await count(client, "batch_guard"), 0);
    await applyGuarded(client, "first write", { guards: [guard("NOT EXISTS (SELECT 1 FROM held_results)")], writes: [heldResult("a")] });
    await assert.rejects(
      applyGuarded(client, "second write", { guards: [guard("NOT EXISTS (SELECT 1 FROM held_results)")], writes: [heldResult("b")] }),
      BatchConflict,
    );
    assert.equal(await count(client, "held_results"), 1, "nothing of the refused batch was written");
  });
});

test("valTownSqliteClient: std/sqlite's errors pass through with SQLite's message", async () => {
  await withStandIn(async (client) => {
    await assert.rejects(client.execute(statement("SELECT * FROM no_such_table")), /no such table: no_such_table/);
  });
});

test("valTownSqliteClient: what JSON cannot carry is refused before anything is sent; a safe bigint goes as a number", async () => {
  const { sqlite, sent } = fakeSqlite((s) => s.map(() => ({ columns: [], rows: [], rowsAffected: 0 })));
  const client = valTownSqliteClient(sqlite);
  for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, 2n ** 60n, new Uint8Array([1]), new ArrayBuffer(1)]) {
    await assert.rejects(client.execute(statement("SELECT ?", bad)), /cannot|beyond|no bytes/);
    await assert.rejects(client.batch([statement("SELECT 1"), statement("SELECT ?", bad)], "write"), /cannot|beyond|no bytes/);
  }
  assert.equal(sent.length, 0, "nothing reached std/sqlite");
  await client.execute(statement("SELECT ?, ?, ?", 42n, "text", null));
  assert.deepEqual(sent, [[{ sql: "SELECT ?, ?, ?", args: [42, "text", null] }]]);
});

test("valTownSqliteClient: a malformed answer is refused, not guessed at", async () => {
  const answers: unknown[] = [
    { columns: ["a"], rows: ["not a row"], rowsAffected: 0 },
    { columns: ["a", "b"], rows: [[1]], rowsAffected: 0 },
    { columns: ["a"], rows: [{ b: 1 }], rowsAffected: 0 },
    { columns: ["a"], rows: [[{ nested: true }]], rowsAffected: 0 },
    { columns: ["a"], rows: [[2n ** 60n]], rowsAffected: 0 },
    { columns: "a", rows: [], rowsAffected: 0 },
    { columns: [], rows: [], rowsAffected: "1" },
    { columns: [], rows: [], rowsAffected: 1, lastInsertRowid: "12abc" },
    { columns: [], rows: [], rowsAffected: 1, lastInsertRowid: 1.5 },
    null,
  ];
  for (const answer of answers) {
    const client = valTownSqliteClient(fakeSqlite(() => [answer]).sqlite);
    await assert.rejects(
      client.execute(statement("SELECT 1")),
      ValTownSqliteShapeError,
      JSON.stringify(answer, (_k, v: unknown) => (typeof v === "bigint" ? `${v}n` : v)),
    );
  }
  const short = valTownSqliteClient(fakeSqlite(() => [{ columns: [], rows: [], rowsAffected: 0 }]).sqlite);
  await assert.rejects(short.batch([statement("SELECT 1"), statement("SELECT 2")], "read"), /2 statements answered with 1 results/);
});

test("valTownSqliteClient: lastInsertRowid as a string, a number or a bigint, and repeated column names, read as @libsql/client reads them", async () => {
  for (const [rowid, expected] of [
    ["7", 7n],
    [7, 7n],
    [7n, 7n],
    [null, undefined],
    [undefined, undefined],
  ] as const) {
    const client = valTownSqliteClient(fakeSqlite(() => [{ columns: ["x", "x"], rows: [[1, 2]], rowsAffected: 1, lastInsertRowid: rowid }]).sqlite);
    const result = await client.execute(statement("SELECT 1 AS x, 2 AS x"));
    assert.equal(result.lastInsertRowid, expected);
    assert.deepEqual(result.rows, [{ x: 1 }], "the first of two columns with one name stands");
  }
});
