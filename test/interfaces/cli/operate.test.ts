// Running errand for months: backup → restore → inspect and verify, a migration's automatic
// backup, and doctor's findings on a broken home. In process (runCli), real SQLite files.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { createJournalSealer } from "../../../src/journal/createJournalSealer.js";
import { deriveSubkey, loadOrCreateMasterKey } from "../../../src/keys/loadKey.js";
import { openSqliteDatabase } from "../../../src/store/sqlite/sqliteBinding.js";
import { migrate } from "../../../src/store/sqlite/migrate.js";
import { MIGRATIONS } from "../../../src/store/sqlite/migrations.js";
import { openSqliteStore } from "../../../src/store/sqlite/openSqliteStore.js";
import { POSTGRES_SCHEMA_VERSION } from "../../../src/store/postgres/postgresMigrations.js";
import { freshTestDatabase, testDatabase } from "../../fixtures/testPostgres.js";
import { readTask } from "../../operations/support/tasks.js";
import { baseEnv, errandInProcess, parseEnvelope } from "./support/runInProcess.js";

const scratch = mkdtempSync(join(tmpdir(), "errand-operate-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
let n = 0;
const fresh = (name: string) => join(scratch, `${(n += 1)}-${name}`);
const errand = (home: string, args: string[], extra: Record<string, string> = {}, stdin = "") =>
  errandInProcess(args, baseEnv({ ERRAND_HOME: home, ...extra }), stdin);

function taskFile(task: Record<string, unknown>): string {
  const file = join(scratch, `${randomUUID()}.json`);
  writeFileSync(file, JSON.stringify(task));
  return file;
}

describe("errand backup and restore", () => {
  test("backup → restore into an empty home with the same key → inspect and journal verify pass", async () => {
    const source = fresh("source");
    const ids = [randomUUID(), randomUUID()];
    for (const id of ids) assert.equal((await errand(source, ["submit", taskFile(readTask(id))])).code, 0);
    const file = join(scratch, `${randomUUID()}.errand-backup`);
    const backup = await errand(source, ["backup", "--out", file, "--json"]);
    assert.equal(backup.code, 0, backup.stderr);
    const body = parseEnvelope(backup.stdout);
    assert.equal(body.status, "done");
    assert.equal(body.data["operations"], 2);
    assert.equal(body.data["keyIncluded"], false);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const human = await errand(source, ["backup", "--out", join(scratch, `${randomUUID()}.bak`)]);
    assert.match(human.stdout, /master key is NOT in this backup/);
    assert.match(human.stdout, /pg_dump/);
    assert.equal((await errand(source, ["backup", "--out", file])).code, 1, "an existing file is never overwritten");

    const target = fresh("target");
    const noKey = await errand(target, ["restore", file]);
    assert.equal(noKey.code, 1);
    assert.match(noKey.stderr, /No master key/);
    assert.equal(existsSync(join(target, "errand.db")), false, "nothing restored without the key");

    const restored = await errand(target, ["restore", file, "--key-file", join(source, "keys", "master.key"), "--json"]);
    assert.equal(restored.code, 0, restored.stdout + restored.stderr);
    assert.equal(parseEnvelope(restored.stdout).status, "done", "backup and restore answer the same word");
    assert.equal(statSync(join(target, "errand.db")).mode & 0o777, 0o600);
    assert.equal(statSync(join(target, "keys", "master.key")).mode & 0o777, 0o600);
    for (const id of ids) {
      const inspected = await errand(target, ["inspect", id, "--json"]);
      assert.equal(inspected.code, 0, inspected.stdout);
      assert.equal(parseEnvelope(inspected.stdout).status, "pending");
    }
    const verified = await errand(target, ["journal", "verify"]);
    assert.equal(verified.code, 0, verified.stdout);
    assert.match(verified.stdout, /^intact/);

    const again = await errand(target, ["restore", file]);
    assert.equal(again.code, 1, "never over an existing database");
    assert.match(again.stderr, /already holds a database/);

    const wrongKey = fresh("wrong-key");
    loadOrCreateMasterKey(wrongKey);
    const tampered = await errand(wrongKey, ["restore", file, "--json"]);
    assert.equal(tampered.code, 1);
    assert.equal(parseEnvelope(tampered.stdout).error?.code, "journal_tampered");
  });

  test("restore refuses a file that is not an errand database", async () => {
    const junk = join(scratch, "junk.bak");
    writeFileSync(junk, "not sqlite at all");
    const target = fresh("junk-target");
    const run = await errand(target, ["restore", junk]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /cannot be opened|damaged|not errand/);
  });

  test("a migration of an existing database takes a backup first", () => {
    const home = fresh("migrate");
    const key = loadOrCreateMasterKey(home);
    const sealer = createJournalSealer(deriveSubkey(key, "journal"));
    const path = join(home, "errand.db");
    // The schema an older errand left (its head is written by the store code of that errand, which this one is not: migrate only).
    const older = MIGRATIONS.slice(0, -1);
    const db = openSqliteDatabase(path);
    migrate(db, older, path);
    db.close();
    assert.deepEqual(
      readdirSync(home).filter((f) => f.endsWith(".bak")),
      [],
      "a fresh database needs no backup",
    );
    const store = openSqliteStore({ path, sealer, busyTimeoutMs: 1000 });
    void store.close();
    const backups = readdirSync(home).filter((f) => f.endsWith(".bak"));
    assert.equal(backups.length, 1, readdirSync(home).join(", "));
    assert.match(backups[0] ?? "", new RegExp(`^errand\\.db\\.pre-v${MIGRATIONS.length}-`));
    assert.equal(statSync(join(home, backups[0] ?? "")).mode & 0o777, 0o600);
  });
});

describe("a loose master key", () => {
  test("other commands warn on one stderr line, tighten it to 600 and still succeed", async () => {
    const home = fresh("loose-key");
    assert.equal((await errand(home, ["submit", taskFile(readTask())])).code, 0);
    const key = join(home, "keys", "master.key");
    chmodSync(key, 0o644);
    const run = await errand(home, ["status", "--json"]);
    assert.equal(run.code, 0);
    const warnings = run.stderr.split("\n").filter((line) => line.includes("master key"));
    assert.equal(warnings.length, 1, run.stderr);
    assert.match(warnings[0] ?? "", /^warning: the master key .* was mode 644 \(readable by group or others\)/);
    assert.equal(statSync(key).mode & 0o777, 0o600);
    assert.equal((await errand(home, ["status", "--json"])).stderr.includes("master key"), false, "no warning once it is 600");
  });
});

describe("errand doctor", () => {
  test("on a broken home: loose modes, no owner password, no Chromium, each with its fix; exit 1", async () => {
    const home = fresh("broken");
    // A write command starts a home (status, a read, never creates a key).
    assert.equal((await errand(home, ["submit", taskFile(readTask())])).code, 0);
    chmodSync(home, 0o755);
    chmodSync(join(home, "keys", "master.key"), 0o644);
    const run = await errand(home, ["doctor", "--offline", "--json"], { CHROME_PATH: "/nonexistent/chromium" });
    assert.equal(run.code, 1, run.stdout);
    const body = parseEnvelope(run.stdout);
    assert.equal(body.status, "needs_attention");
    assert.deepEqual(body.data["home"], { path: home, source: "ERRAND_HOME" });
    const checks = new Map((body.data["checks"] as { name: string; ok: boolean; detail: string; fix: string | null }[]).map((c) => [c.name, c]));
    assert.equal(checks.get("state directory")?.ok, true);
    assert.equal(checks.get("file permissions")?.ok, false);
    assert.match(checks.get("file permissions")?.fix ?? "", new RegExp(`chmod 700 ${home}`));
    assert.match(checks.get("file permissions")?.fix ?? "", /chmod 600 .*master\.key/);
    assert.equal(checks.get("master key")?.ok, true);
    assert.equal(checks.get("database")?.ok, true);
    assert.equal(checks.get("owner password")?.ok, false);
    assert.match(checks.get("owner password")?.fix ?? "", /errand owner set-password/);
    assert.equal(checks.get("chromium")?.ok, false);
    assert.match(checks.get("chromium")?.fix ?? "", /apt-get install -y chromium/);
    for (const check of checks.values()) assert.ok(check.ok || (check.fix !== null && !check.fix.includes("\n")), `${check.name}: a fix in one line`);

    const text = await errand(home, ["doctor", "--offline"], { CHROME_PATH: "/nonexistent/chromium" });
    assert.equal(text.code, 1);
    assert.match(text.stdout, /^errand doctor: state in /);
    assert.match(text.stdout, /FIX {2}owner password/);
  });

  test("doctor flags an ERRAND_OWNER_APPROVAL that lets writes or secrets run without the owner", async () => {
    const home = fresh("policy");
    assert.equal((await errand(home, ["submit", taskFile(readTask())])).code, 0);
    const policy = async (value: string | undefined) => {
      const run = await errand(home, ["doctor", "--offline", "--json"], {
        CHROME_PATH: "/nonexistent/chromium",
        ...(value === undefined ? {} : { ERRAND_OWNER_APPROVAL: value }),
      });
      return (parseEnvelope(run.stdout).data["checks"] as { name: string; ok: boolean; detail: string; fix: string | null }[]).find(
        (c) => c.name === "owner approval",
      );
    };
    assert.equal((await policy(undefined))?.ok, true);
    assert.equal((await policy("consequential,reversible_write,secret"))?.ok, true);
    assert.equal((await policy("all"))?.ok, true);
    const loose = await policy("consequential,secret");
    assert.equal(loose?.ok, false);
    assert.match(loose?.detail ?? "", /reversible_write tasks run on the assistant's word alone/);
    assert.match(loose?.fix ?? "", /unset ERRAND_OWNER_APPROVAL/);
    assert.match((await policy("none"))?.detail ?? "", /reversible_write tasks, consequential tasks, tasks that type a secret/);
  });

  test("a home that does not exist, a missing key and a damaged database are findings, not crashes", async () => {
    const missing = await errand(fresh("nowhere"), ["doctor", "--offline", "--json"]);
    assert.equal(missing.code, 1);
    const checks = parseEnvelope(missing.stdout).data["checks"] as { name: string; ok: boolean }[];
    assert.deepEqual(
      checks
        .filter((c) => !c.ok)
        .map((c) => c.name)
        .slice(0, 3),
      ["state directory", "master key", "database"],
    );

    // Each doctor run gets a home of its own, damaged the same way, so neither sees what the other did.
    const damagedHome = async (name: string): Promise<string> => {
      const home = fresh(name);
      assert.equal((await errand(home, ["submit", taskFile(readTask())])).code, 0);
      writeFileSync(join(home, "errand.db"), "garbage");
      rmSync(join(home, "errand.db-wal"), { force: true });
      rmSync(join(home, "errand.db-shm"), { force: true });
      return home;
    };
    const run = await errand(await damagedHome("damaged"), ["doctor", "--offline", "--json"], { ERRAND_OWNER_PASSWORD: "a long enough password" });
    assert.equal(run.code, 1);
    const database = (parseEnvelope(run.stdout).data["checks"] as { name: string; ok: boolean; fix: string }[]).find((c) => c.name === "database");
    assert.equal(database?.ok, false);
    assert.match(database?.fix ?? "", /errand restore/);
    const owner = (parseEnvelope(run.stdout).data["checks"] as { name: string; ok: boolean; detail: string }[]).find((c) => c.name === "owner password");
    assert.equal(owner?.ok, true, "the owner-password check still runs when the database cannot be read");
    assert.match(owner?.detail ?? "", /ERRAND_OWNER_PASSWORD/);
    const unset = await errand(await damagedHome("damaged-unset"), ["doctor", "--offline", "--json"]);
    const unknown = (parseEnvelope(unset.stdout).data["checks"] as { name: string; ok: boolean; detail: string }[]).find((c) => c.name === "owner password");
    assert.equal(unknown?.ok, false);
    assert.match(unknown?.detail ?? "", /^unknown: .*cannot be read/);
  });
});

const database = await testDatabase();

describe("errand doctor with ERRAND_DATABASE_URL", database.skip === undefined ? {} : { skip: database.skip }, () => {
  test("reports on the PostgreSQL database the URL names, not on ERRAND_HOME/errand.db: unmigrated, migrated, unreachable", async () => {
    const db = await freshTestDatabase(database.url ?? "", "errand_h15_doctor");
    try {
      const home = fresh("pg");
      const doctor = async (url: string) => {
        const run = await errand(home, ["doctor", "--offline", "--json"], { ERRAND_DATABASE_URL: url, ERRAND_OWNER_PASSWORD: "a long enough password" });
        const checks = parseEnvelope(run.stdout).data["checks"] as { name: string; ok: boolean; detail: string; fix: string | null }[];
        return checks.find((c) => c.name === "database");
      };
      const unmigrated = await doctor(db.url);
      assert.equal(unmigrated?.ok, false);
      assert.match(unmigrated?.detail ?? "", /PostgreSQL .*ERRAND_DATABASE_URL.* has no errand schema/);
      assert.match(unmigrated?.fix ?? "", /errand migrate/);
      assert.ok(!existsSync(join(home, "errand.db")), "doctor created no SQLite file");

      assert.equal((await errand(home, ["migrate"], { ERRAND_DATABASE_URL: db.url })).code, 0);
      const migrated = await doctor(db.url);
      assert.equal(migrated?.ok, true, migrated?.detail);
      assert.match(migrated?.detail ?? "", new RegExp(`reachable, schema ${POSTGRES_SCHEMA_VERSION}`));
      assert.ok(!existsSync(join(home, "errand.db")), "still no SQLite file: nothing looked there");

      const unreachable = await doctor("postgres://errand@127.0.0.1:1/errand");
      assert.equal(unreachable?.ok, false);
      assert.match(unreachable?.fix ?? "", /ERRAND_DATABASE_URL/);
      const downRun = await errand(home, ["doctor", "--offline", "--json"], {
        ERRAND_DATABASE_URL: "postgres://errand@127.0.0.1:1/errand",
        ERRAND_OWNER_PASSWORD: "a long enough password",
      });
      const owner = (parseEnvelope(downRun.stdout).data["checks"] as { name: string; ok: boolean }[]).find((c) => c.name === "owner password");
      assert.equal(owner?.ok, true, "the owner-password check runs while the database is down");
    } finally {
      await db.drop();
    }
  });
});
