// The SQLite backend passes the Store conformance suite (test/store/conformance/storeConformance.ts).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteDatabase } from "../../src/store/sqlite/sqliteBinding.js";
import { openSqliteStore } from "../../src/store/sqlite/openSqliteStore.js";
import { storeConformance } from "./conformance/storeConformance.js";

const COLUMNS = new Set(["phase", "attempts", "mutation_boundary", "risk", "submitted_by"]);

storeConformance("sqlite", ({ sealer, clock }) => {
  const home = mkdtempSync(join(tmpdir(), "errand-conformance-"));
  const path = join(home, "errand.db");
  const open = () => openSqliteStore({ path, sealer, clock, busyTimeoutMs: 1000 });
  const store = open();
  return Promise.resolve({
    store,
    another: open,
    tamper(operationId, column, value) {
      if (!COLUMNS.has(column)) throw new Error(`not a column the suite edits: ${column}`);
      const db = openSqliteDatabase(path);
      try {
        db.prepare(`UPDATE operations SET ${column} = ? WHERE operation_id = ?`).run(value, operationId);
      } finally {
        db.close();
      }
      return Promise.resolve();
    },
    async close() {
      await store.close();
      rmSync(home, { recursive: true, force: true });
    },
  });
});
