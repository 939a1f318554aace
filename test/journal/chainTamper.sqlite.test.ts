// Per-operation chains and checkpoints under tampering, on SQLite (test/journal/support/chainTamperSuite.ts).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteDatabase, type SqliteDatabase } from "../../src/store/sqlite/sqliteBinding.js";
import { openSqliteStore } from "../../src/store/sqlite/openSqliteStore.js";
import { chainTamperSuite } from "./support/chainTamperSuite.js";

chainTamperSuite("sqlite", ({ sealer, clock }) => {
  const home = mkdtempSync(join(tmpdir(), "errand-chain-tamper-"));
  const path = join(home, "errand.db");
  const store = openSqliteStore({ path, sealer, clock, busyTimeoutMs: 1000 });
  const withDb = <T>(body: (db: SqliteDatabase) => T): T => {
    const db = openSqliteDatabase(path);
    try {
      return body(db);
    } finally {
      db.close();
    }
  };
  return Promise.resolve({
    store,
    exec: (sql) => Promise.resolve(void withDb((db) => db.exec(sql))),
    rows: (sql) => Promise.resolve(withDb((db) => db.prepare(sql).all() as Record<string, unknown>[])),
    async close() {
      await store.close();
      rmSync(home, { recursive: true, force: true });
    },
  });
});
