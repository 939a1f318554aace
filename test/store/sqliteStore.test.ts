// The SQLite store itself: file settings, migrations, refusing a newer schema, atomic claims.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { openSqliteDatabase } from "../../src/store/sqlite/sqliteBinding.js";
import { createJournalSealer } from "../../src/journal/createJournalSealer.js";
import { openSqliteStore } from "../../src/store/sqlite/openSqliteStore.js";
import { LATEST_SCHEMA_VERSION, MIGRATIONS } from "../../src/store/sqlite/migrations.js";
import { SchemaTooNewError } from "../../src/store/storeErrors.js";
import { makeTempHome, openHarness } from "../operations/support/harness.js";
import { readTask } from "../operations/support/tasks.js";

const sealer = createJournalSealer(Buffer.alloc(32, 7));

describe("SQLite store", () => {
  test("a new database is in WAL mode with every migration recorded", async () => {
    const home = makeTempHome();
    try {
      const path = join(home, "errand.db");
      const store = openSqliteStore({ path, sealer, busyTimeoutMs: 1000 });
      assert.equal(await store.schemaVersion(), LATEST_SCHEMA_VERSION);
      await store.close();
      const db = openSqliteDatabase(path, { readonly: true });
      assert.equal(db.pragma("journal_mode", { simple: true }), "wal");
      const versions = db.prepare("SELECT version FROM schema_migrations ORDER BY version").all() as { version: number }[];
      db.close();
      assert.deepEqual(
        versions.map((v) => v.version),
        MIGRATIONS.map((m) => m.version),
      );
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("reopening applies nothing twice and keeps the data", async () => {
    const h = await openHarness();
    try {
      const id = randomUUID();
      await h.service.submit(readTask(id));
      const again = await h.reopen();
      const inspected = await again.service.inspect(id);
      assert.ok(inspected.ok);
      assert.equal(await again.store.schemaVersion(), LATEST_SCHEMA_VERSION);
    } finally {
      await h.close();
    }
  });

  test("a database written by a newer errand is refused with a clear error before anything runs", async () => {
    const home = makeTempHome();
    try {
      const path = join(home, "errand.db");
      const newer = [...MIGRATIONS, { version: LATEST_SCHEMA_VERSION + 1, name: "from the future", sql: "CREATE TABLE future_things (id INTEGER)" }];
      await openSqliteStore({ path, sealer, busyTimeoutMs: 1000, migrations: newer }).close();
      assert.throws(
        () => openSqliteStore({ path, sealer, busyTimeoutMs: 1000 }),
        (error: unknown) => error instanceof SchemaTooNewError && error.found === LATEST_SCHEMA_VERSION + 1 && /Upgrade errand/.test(error.message),
      );
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("a migration and its record commit together: a failing migration leaves the version where it was", () => {
    const home = makeTempHome();
    try {
      const path = join(home, "errand.db");
      const broken = [...MIGRATIONS, { version: LATEST_SCHEMA_VERSION + 1, name: "broken", sql: "CREATE TABLE half_done (id INTEGER); THIS IS NOT SQL" }];
      assert.throws(() => openSqliteStore({ path, sealer, busyTimeoutMs: 1000, migrations: broken }));
      const db = openSqliteDatabase(path, { readonly: true });
      const max = db.prepare("SELECT max(version) AS v FROM schema_migrations").get() as { v: number };
      const half = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'half_done'").get() as { n: number };
      db.close();
      assert.equal(max.v, LATEST_SCHEMA_VERSION);
      assert.equal(half.n, 0);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("two connections claiming the same queue never get the same operation", async () => {
    const h = await openHarness();
    const other = await h.reopen();
    try {
      for (let i = 0; i < 40; i += 1) await h.service.submit(readTask());
      const claimed: string[] = [];
      for (let i = 0; i < 25; i += 1) {
        const [a, b] = await Promise.all([h.store.claimNext("a", 60_000), other.store.claimNext("b", 60_000)]);
        for (const c of [a, b]) if (c !== undefined) claimed.push(c.operation.operationId);
      }
      assert.equal(claimed.length, 40);
      assert.equal(new Set(claimed).size, 40);
      assert.equal(await h.store.claimNext("a", 60_000), undefined);
    } finally {
      await h.close();
    }
  });
});
