// openLibsqlStores: every libSQL store over one client, the schema and the journal head checked once (by
// the operations store), not again by each of the others: on a host whose database is a server (Val
// Town's, a libSQL server) every statement is a round trip.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { openLibsqlStores } from "../../src/app/libsqlStores.js";
import { createJournalSealer } from "../../src/journal/createJournalSealer.js";
import type { LibsqlClientLike, LibsqlStatement } from "../../src/store/libsql/LibsqlClientLike.js";
import { openLibsqlClient } from "../../src/store/libsql/openLibsqlClient.js";

const scratch = mkdtempSync(join(tmpdir(), "errand-libsql-stores-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

function counting(client: LibsqlClientLike): { client: LibsqlClientLike; sql: string[] } {
  const sql: string[] = [];
  const text = (s: LibsqlStatement | string): string => (typeof s === "string" ? s : s.sql);
  return {
    sql,
    client: {
      execute: (statement) => (sql.push(text(statement)), client.execute(statement)),
      batch: (statements, mode) => (sql.push(...statements.map(text)), client.batch(statements, mode)),
    },
  };
}

test("openLibsqlStores reads the schema and writes the journal head once, on a new database and on one already made; every store works", async () => {
  const raw = await openLibsqlClient({ url: `file:${join(scratch, "errand.db")}` });
  const sealer = createJournalSealer(randomBytes(32));
  try {
    for (const round of ["new", "existing"]) {
      const { client, sql } = counting(raw);
      const stores = await openLibsqlStores({ client, where: "test database", sealer });
      assert.equal(sql.filter((s) => s.includes("sqlite_master")).length, 1, `${round}: the schema is looked for once`);
      assert.equal(sql.filter((s) => /INSERT OR IGNORE INTO journal_head/.test(s)).length, 1, `${round}: the journal head is ensured once`);
      assert.equal((await stores.provider.readProviderState("steel")).updatedMs, null);
      assert.equal(await stores.access.readOwnerSecret(), undefined);
      assert.deepEqual(await stores.files.listFiles(), []);
      assert.deepEqual(await stores.secrets.listSecrets(), []);
      assert.deepEqual(await stores.sites.listSites(), []);
      assert.equal(await stores.artifacts.readArtifact("no-such-operation", 0), undefined);
      assert.deepEqual((await stores.operations.status()).phases.queued, 0);
    }
  } finally {
    raw.close?.();
  }
});
