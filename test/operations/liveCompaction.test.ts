// Scheduled journal compaction on a live SQLite store (support/liveCompactionSuite.ts).
import { openSqliteDatabase } from "../../src/store/sqlite/sqliteBinding.js";
import { liveCompactionSuite } from "./support/liveCompactionSuite.js";
import { openHarness } from "./support/harness.js";

liveCompactionSuite("SQLite", async (options) => {
  const h = await openHarness(options);
  return {
    h,
    exec(sql) {
      const db = openSqliteDatabase(h.dbPath);
      try {
        db.prepare(sql).run();
      } finally {
        db.close();
      }
      return Promise.resolve();
    },
  };
});
