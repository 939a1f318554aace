// The batch guard on the real @libsql/client (file:): a guard that fails rolls back every statement
// of its batch, the ones before it included, and a guard that holds leaves batch_guard empty.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "node:test";
import { applyGuarded, BatchConflict, guard } from "../../../src/store/libsql/batchGuard.js";
import { createLibsqlSchema } from "../../../src/store/libsql/createLibsqlSchema.js";
import { statement } from "../../../src/store/libsql/LibsqlClientLike.js";
import type { LibsqlClientLike } from "../../../src/store/libsql/LibsqlClientLike.js";
import { LIBSQL_SCHEMA_VERSION } from "../../../src/store/libsql/libsqlSchema.js";
import { queryRow } from "../../../src/store/libsql/libsqlRows.js";
import { openLibsqlTestClient } from "../../fixtures/libsqlTestClient.js";

async function withClient(body: (client: LibsqlClientLike, url: string) => Promise<void>): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), "errand-libsql-guard-"));
  const url = pathToFileURL(join(home, "errand.db")).href;
  const client = await openLibsqlTestClient({ url });
  try {
    assert.equal(await createLibsqlSchema(client, url, 0), LIBSQL_SCHEMA_VERSION);
    await body(client, url);
  } finally {
    client.close?.();
    rmSync(home, { recursive: true, force: true });
  }
}

const heldResult = (id: string) => statement("INSERT INTO held_results (operation_id, attempt, sealed, expires_ms) VALUES (?, 1, 'x', 0)", id);
const count = async (client: LibsqlClientLike, table: string) => (await queryRow<{ n: number }>(client, `SELECT count(*) AS n FROM ${table}`))?.n;

test("libsql batch guard: a failing guard rolls back the whole batch, writes before it included", async () => {
  await withClient(async (client) => {
    await assert.rejects(
      client.batch([heldResult("before"), guard("EXISTS (SELECT 1 FROM held_results WHERE operation_id = ?)", "absent"), heldResult("after")], "write"),
      (error: Error) => error.message.includes("batch_guard_holds"),
    );
    assert.equal(await count(client, "held_results"), 0, "the write before the guard was rolled back");
    assert.equal(await count(client, "batch_guard"), 0);
  });
});

test("libsql batch guard: applyGuarded writes when every guard holds, and reports a conflict when one fails", async () => {
  await withClient(async (client) => {
    await applyGuarded(client, "first write", { guards: [guard("NOT EXISTS (SELECT 1 FROM held_results)")], writes: [heldResult("a")] });
    assert.equal(await count(client, "held_results"), 1);
    assert.equal(await count(client, "batch_guard"), 0, "the guard row is gone once the batch commits");
    await assert.rejects(
      applyGuarded(client, "second write", { guards: [guard("1"), guard("NOT EXISTS (SELECT 1 FROM held_results)")], writes: [heldResult("b")] }),
      BatchConflict,
    );
    assert.equal(await count(client, "held_results"), 1, "nothing of the refused batch was written");
    assert.equal(await count(client, "batch_guard"), 0);
  });
});

test("libsql schema: a second open finds the schema and its version; a newer version is refused", async () => {
  await withClient(async (client, url) => {
    assert.equal(await createLibsqlSchema(client, url, 0), LIBSQL_SCHEMA_VERSION);
    await client.execute(statement("INSERT INTO libsql_schema (version, name, applied_ms) VALUES (?, 'from a newer errand', 0)", LIBSQL_SCHEMA_VERSION + 1));
    await assert.rejects(createLibsqlSchema(client, url, 0), /schema version 2/);
  });
});
