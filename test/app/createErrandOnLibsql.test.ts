// errand put together on a libSQL database: ERRAND_DATABASE_URL=file:… selects the libSQL store, and
// a platform's own client (Val Town's std/sqlite, through its adapter over the stand-in) works the
// same way. Everything the composition root hands out (the operations service, the owner's
// registries, the access tables, the executor's stores) lives in that one database under the one
// key; nothing is written to ERRAND_HOME. Commands that still open SQLite or PostgreSQL only refuse
// a libSQL URL with words that name what works.
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { createErrand } from "../../src/app/createErrand.js";
import type { ExecutorSettings } from "../../src/app/wiredExecutor.js";
import { openProviderStore } from "../../src/app/openProviderStore.js";
import { ConfigError } from "../../src/config/configError.js";
import { resolveRuntimeConfig } from "../../src/config/runtimeConfig.js";
import { valTownSqliteClient } from "../../src/store/libsql/valTownSqliteClient.js";
import { openValTownSqliteStandIn } from "../fixtures/valTownSqliteStandIn.js";
import { createFakeExecutor } from "../operations/support/fakeExecutor.js";
import { readTask } from "../operations/support/tasks.js";
import { errandInProcess } from "../support/errandInProcess.js";

const scratch = mkdtempSync(join(tmpdir(), "errand-libsql-app-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

function freshDir(): string {
  return mkdtempSync(join(scratch, "case-"));
}

describe("createErrand on libSQL", () => {
  test("ERRAND_DATABASE_URL=file:… keeps operations, registries and access tables in that file; a second errand on it reads them", async () => {
    const dir = freshDir();
    const home = join(dir, "home");
    const env = { ERRAND_HOME: home, ERRAND_DATABASE_URL: `file:${join(dir, "errand.db")}` };
    const key = randomBytes(32);
    const fake = createFakeExecutor();
    let given: ExecutorSettings | undefined;
    const errand = await createErrand({
      env,
      masterKey: key,
      config: { retryDelayMs: 0 },
      executor: (settings) => {
        given = settings;
        return { execute: fake.execute, shutdown: () => Promise.resolve() };
      },
    });
    const id = randomUUID();
    try {
      assert.equal(errand.location.backend, "libsql");
      assert.equal(errand.store.backend, "libsql");
      const submitted = await errand.service.submit(readTask(id));
      assert.ok(submitted.ok, JSON.stringify(submitted));
      const report = await errand.service.runQueue();
      assert.equal(report.attempts.length, 1);
      const collected = await errand.service.collect(id);
      assert.ok(collected.ok);
      assert.equal(collected.receipt?.status, "PASS");

      await errand.secretRegistry().set("portal_password", ["https://portal.example"], { kind: "stored", value: "s3cret-canary" });
      await errand.accessTables().access.writeOwnerSecret("encoded-owner-secret");
      // The executor was handed errand's own registries, not ones it located again.
      assert.ok(given?.stores !== undefined);
      assert.equal(given.stores.secrets, errand.secretRegistry());
      assert.equal(given.stores.sites, errand.siteRegistry());
      assert.equal(given.stores.files, errand.fileRegistry());
    } finally {
      await errand.close();
    }
    assert.equal(existsSync(home), false, "nothing in ERRAND_HOME: no key file, no errand.db");

    const again = await createErrand({ env, masterKey: key, access: "read" });
    try {
      const collected = await again.service.collect(id);
      assert.ok(collected.ok);
      assert.equal(collected.receipt?.status, "PASS");
      assert.deepEqual(
        (await again.secretRegistry().list()).map((s) => s.name),
        ["portal_password"],
      );
      assert.equal(await again.accessTables().access.readOwnerSecret(), "encoded-owner-secret");
      assert.equal((await again.service.verifyJournal()).ok, true);
    } finally {
      await again.close();
    }
    const other = await createErrand({ env, masterKey: randomBytes(32), access: "read" });
    try {
      assert.equal((await other.service.verifyJournal()).ok, false, "a journal written under one key does not verify under another");
    } finally {
      await other.close();
    }
  });

  test("a platform's own client (Val Town's std/sqlite through its adapter) is used as given, and errand never closes it", async () => {
    const dir = freshDir();
    const standIn = await openValTownSqliteStandIn({ url: `file:${join(dir, "val.db")}` });
    try {
      const client = valTownSqliteClient(standIn.sqlite);
      const fake = createFakeExecutor();
      const key = randomBytes(32);
      const open = () =>
        createErrand({
          env: { ERRAND_HOME: join(dir, "home") },
          masterKey: key,
          location: { backend: "libsql", url: "Val Town std/sqlite", client },
          executor: () => ({ execute: fake.execute, shutdown: () => Promise.resolve() }),
        });
      const errand = await open();
      const id = randomUUID();
      try {
        assert.ok((await errand.service.submit(readTask(id))).ok);
        await errand.service.runQueue();
      } finally {
        await errand.close();
      }
      // The same client, still open, serves the next request's errand.
      const next = await open();
      try {
        const collected = await next.service.collect(id);
        assert.ok(collected.ok);
        assert.equal(collected.receipt?.status, "PASS");
      } finally {
        await next.close();
      }
      assert.deepEqual(
        readdirSync(dir).sort(),
        ["val.db", "val.db-shm", "val.db-wal"].filter((f) => existsSync(join(dir, f))),
      );
    } finally {
      standIn.close();
    }
  });

  test("a database URL of no known kind is refused naming the variable and both kinds; a command that opens SQLite or PostgreSQL only refuses libSQL", () => {
    for (const url of ["mysql://db/errand", "sqlite:/tmp/x.db", "errand.db", "ftp://x"]) {
      assert.throws(
        () => resolveRuntimeConfig({ ERRAND_HOME: freshDir(), ERRAND_DATABASE_URL: url }),
        (error: unknown) =>
          error instanceof ConfigError && /ERRAND_DATABASE_URL/.test(error.message) && /postgres:\/\//.test(error.message) && /file:/.test(error.message),
      );
    }
    const config = resolveRuntimeConfig({ ERRAND_HOME: freshDir(), ERRAND_DATABASE_URL: `file:${join(freshDir(), "errand.db")}` });
    assert.throws(
      () => openProviderStore(config),
      (error: unknown) => error instanceof ConfigError && /libSQL/.test(error.message) && /key rotation/.test(error.message),
    );
  });

  test("the CLI on a file: libSQL database: status of a never-used one reads zeros and writes nothing; submit starts it with a key; status and inspect read it; key rotate refuses it", async () => {
    const dir = freshDir();
    const home = join(dir, "home");
    const env = { ERRAND_HOME: home, ERRAND_DATABASE_URL: `file:${join(dir, "errand.db")}` };
    const first = await errandInProcess(["status", "--json"], env);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(existsSync(home), false, "a report on an unused home writes nothing");
    assert.equal(existsSync(join(dir, "errand.db")), false);
    const id = randomUUID();
    const submitted = await errandInProcess(["submit", "-", "--json"], env, JSON.stringify(readTask(id)));
    assert.equal(submitted.code, 0, submitted.stderr);
    assert.ok(existsSync(join(home, "keys", "master.key")), "a write starts the home's key");
    const status = await errandInProcess(["status", "--json"], env);
    assert.equal(status.code, 0, status.stderr);
    const data = (JSON.parse(status.stdout) as { data: { store: { backend: string; phases: { queued: number } } } }).data;
    assert.equal(data.store.backend, "libsql");
    assert.equal(data.store.phases.queued, 1);
    assert.equal((await errandInProcess(["inspect", id], env)).code, 0);
    const rotate = await errandInProcess(["key", "rotate"], env);
    assert.notEqual(rotate.code, 0);
    assert.match(rotate.stdout + rotate.stderr, /libSQL/);
  });
});
