// The CLI on PostgreSQL: --database-url / ERRAND_DATABASE_URL switch every command, errand migrate
// sets a fresh database up (and alone may create the master key there), journal verify finds a row
// edited with SQL, and a bad URL or an unreachable server is reported naming the variable.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { POSTGRES_SCHEMA_VERSION } from "../../../src/store/postgres/postgresMigrations.js";
import { freshTestDatabase, testDatabase, withSchemaClient } from "../../fixtures/testPostgres.js";
import { readTask } from "../../operations/support/tasks.js";
import { baseEnv, errandInProcess, parseEnvelope } from "./support/runInProcess.js";

const database = await testDatabase();
const scratch = mkdtempSync(join(tmpdir(), "errand-pg-cli-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

describe("the CLI on PostgreSQL", database.skip === undefined ? {} : { skip: database.skip }, () => {
  test("migrate, submit, status and journal verify run on the database --database-url names; an edited row is found by verify", async () => {
    const fresh = await freshTestDatabase(database.url ?? "", "errand_test_cli");
    try {
      const home = join(scratch, "home");
      const env = baseEnv({ ERRAND_HOME: home });
      const refused = await errandInProcess(["submit", "-", "--database-url", fresh.url, "--json"], env, JSON.stringify(readTask()));
      assert.equal(parseEnvelope(refused.stdout).error?.code, "key_error", "no key is created for a shared database by anything but migrate");
      assert.equal(existsSync(join(home, "keys", "master.key")), false);

      const migrated = await errandInProcess(["migrate", "--database-url", fresh.url, "--json"], env);
      assert.equal(migrated.code, 0, migrated.stderr);
      assert.deepEqual(parseEnvelope(migrated.stdout).data, {
        backend: "postgres",
        database: fresh.url.replace(/^postgres:\/\/[^@]*@/, "postgres://postgres@"),
        schemaVersion: POSTGRES_SCHEMA_VERSION,
      });
      assert.ok(existsSync(join(home, "keys", "master.key")));
      assert.equal(existsSync(join(home, "errand.db")), false, "nothing is written to SQLite");

      const id = randomUUID();
      const file = join(scratch, `${id}.json`);
      writeFileSync(file, JSON.stringify(readTask(id)));
      const withUrl = { ...env, ERRAND_DATABASE_URL: fresh.url };
      const submitted = await errandInProcess(["submit", file, "--json"], withUrl);
      assert.equal(submitted.code, 0, submitted.stderr);
      const status = await errandInProcess(["status", "--json"], withUrl);
      const data = parseEnvelope(status.stdout).data as { store: { phases: { queued: number }; backend: string } };
      assert.deepEqual([data.store.phases.queued, data.store.backend], [1, "postgres"]);
      assert.equal((await errandInProcess(["journal", "verify"], withUrl)).code, 0);

      await withSchemaClient(fresh.url, undefined, (client) => client.query("UPDATE operations SET attempts = 5 WHERE operation_id = $1", [id]));
      const verified = await errandInProcess(["journal", "verify", "--json"], withUrl);
      assert.equal(verified.code, 1);
      assert.match(verified.stdout, /operation_state/);
      assert.match(verified.stdout, new RegExp(id));
    } finally {
      await fresh.drop();
    }
  });

  test("a URL that is not postgres:// is configuration_error and an unreachable server store_unavailable, naming ERRAND_DATABASE_URL and never the password", async () => {
    const env = baseEnv({ ERRAND_HOME: join(scratch, "errors") });
    const bad = await errandInProcess(["status", "--json"], { ...env, ERRAND_DATABASE_URL: "mysql://root@db/errand" });
    assert.equal(bad.code, 1);
    assert.equal(parseEnvelope(bad.stdout).error?.code, "configuration_error");
    assert.match(parseEnvelope(bad.stdout).error?.message ?? "", /ERRAND_DATABASE_URL/);
    const down = await errandInProcess(["migrate", "--database-url", "postgres://errand:s3cret-pw@127.0.0.1:1/errand", "--json"], env);
    assert.equal(down.code, 1);
    const error = parseEnvelope(down.stdout).error;
    assert.equal(error?.code, "store_unavailable");
    assert.match(error?.message ?? "", /ERRAND_DATABASE_URL/);
    assert.doesNotMatch(down.stdout + down.stderr, /s3cret-pw/);
  });
});
