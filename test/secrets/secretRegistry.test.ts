// The owner's secret registry on a real SQLite file: values sealed at rest with name and sites as
// associated data, refused sources and values, lookups that never carry a value, journal events
// without values, and rows edited in the database that no longer open.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { openSqliteDatabase } from "../../src/store/sqlite/sqliteBinding.js";
import { deriveSubkey } from "../../src/keys/loadKey.js";
import { createSealedBox } from "../../src/keys/sealedBox.js";
import { createSecretRegistry } from "../../src/secrets/createSecretRegistry.js";
import { SecretError } from "../../src/secrets/secretTypes.js";
import { openSqliteSecretStore } from "../../src/store/sqlite/openSqliteSecretStore.js";
import { openHarness } from "../operations/support/harness.js";

const CANARY = "Canary-Registry-7731";

async function openRegistry(env: NodeJS.ProcessEnv = {}) {
  const h = await openHarness();
  const store = openSqliteSecretStore({ path: h.dbPath, sealer: h.sealer, busyTimeoutMs: 1000 });
  const registry = createSecretRegistry({ store, box: createSealedBox(deriveSubkey(h.key, "secrets")), env, errandHome: h.home });
  return {
    h,
    registry,
    async close() {
      await store.close();
      await h.close();
    },
  };
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    assert.ok(error instanceof SecretError, String(error));
    assert.ok(!error.message.includes(CANARY), "a refusal never quotes the value");
    return error.code;
  }
}

describe("secret registry", () => {
  test("secretRegistry stores a value encrypted: no plaintext in any file under ERRAND_HOME; reveal gives it back with its sites", async () => {
    const r = await openRegistry();
    try {
      const set = await r.registry.set("portal", ["https://Portal.example.com/", "http://127.0.0.1:8080"], { kind: "stored", value: CANARY });
      assert.equal(set.created, true);
      assert.deepEqual(set.secret.sites, ["http://127.0.0.1:8080", "https://portal.example.com"]);
      assert.deepEqual(await r.registry.reveal("portal"), { name: "portal", sites: ["http://127.0.0.1:8080", "https://portal.example.com"], value: CANARY });
      assert.deepEqual(await r.registry.lookup("portal"), { name: "portal", sites: ["http://127.0.0.1:8080", "https://portal.example.com"] });
      assert.equal(await r.registry.lookup("nope"), null);
      assert.equal(await r.registry.lookup("not a name"), null);
      const listed = JSON.stringify(await r.registry.list());
      assert.ok(!listed.includes(CANARY) && !listed.includes("aead1."), "list never carries the value or its ciphertext");
      for (const file of readdirSync(r.h.home, { recursive: true }) as string[]) {
        const path = join(r.h.home, file);
        if (!file.includes(".")) continue;
        const bytes = readFileSync(path).toString("latin1").toLowerCase();
        assert.ok(!bytes.includes(CANARY.toLowerCase()), `${file} holds the plaintext`);
      }
    } finally {
      await r.close();
    }
  });

  test("secretRegistry journals secret_changed with name, sites and source kind only", async () => {
    const r = await openRegistry();
    try {
      await r.registry.set("portal", ["https://portal.example.com"], { kind: "stored", value: CANARY });
      await r.registry.set("portal", ["https://portal.example.com", "https://*.example.org"], { kind: "stored", value: `${CANARY}-2` });
      assert.equal(await r.registry.delete("portal"), true);
      assert.equal(await r.registry.delete("portal"), false);
      const events = (await r.h.store.readJournalEvents(0, 100)).filter((e) => e.type === "secret_changed");
      assert.deepEqual(
        events.map((e) => JSON.parse(e.body ?? "{}") as Record<string, unknown>),
        [
          { change: "created", name: "portal", sites: ["https://portal.example.com"], sourceKind: "stored" },
          { change: "updated", name: "portal", sites: ["https://*.example.org", "https://portal.example.com"], sourceKind: "stored" },
          { change: "deleted", name: "portal", sites: ["https://*.example.org", "https://portal.example.com"], sourceKind: "stored" },
        ],
      );
      assert.equal((await r.h.service.verifyJournal()).ok, true);
      assert.equal(await codeOf(r.registry.reveal("portal")), "secret_unknown");
    } finally {
      await r.close();
    }
  });

  test("secretRegistry: widening a secret's sites in the database makes it unreadable, not re-bound", async () => {
    const r = await openRegistry();
    try {
      await r.registry.set("portal", ["https://portal.example.com"], { kind: "stored", value: CANARY });
      await r.registry.set("other", ["https://other.example.com"], { kind: "stored", value: `${CANARY}-other` });
      const db = openSqliteDatabase(r.h.dbPath);
      db.prepare("UPDATE secrets SET sites_json = ? WHERE name = 'portal'").run(JSON.stringify(["https://evil.example"]));
      const sealed = (db.prepare("SELECT sealed FROM secrets WHERE name = 'other'").get() as { sealed: string }).sealed;
      db.close();
      assert.equal(await codeOf(r.registry.reveal("portal")), "secret_unreadable");
      assert.equal(await codeOf(r.registry.lookup("portal")), "secret_unreadable");
      const db2 = openSqliteDatabase(r.h.dbPath);
      db2
        .prepare("INSERT INTO secrets (name, sites_json, source_kind, sealed, created_ms, updated_ms) VALUES ('copy', ?, 'stored', ?, 0, 0)")
        .run(JSON.stringify(["https://other.example.com"]), sealed);
      db2.close();
      assert.equal(await codeOf(r.registry.reveal("copy")), "secret_unreadable", "a ciphertext moved to another name does not open");
    } finally {
      await r.close();
    }
  });

  test("secretRegistry under another master key cannot open what was stored", async () => {
    const r = await openRegistry();
    try {
      await r.registry.set("portal", ["https://portal.example.com"], { kind: "stored", value: CANARY });
      const store = openSqliteSecretStore({ path: r.h.dbPath, sealer: r.h.sealer, busyTimeoutMs: 1000 });
      const other = createSecretRegistry({ store, box: createSealedBox(deriveSubkey(randomBytes(32), "secrets")), env: {}, errandHome: r.h.home });
      assert.equal(await codeOf(other.reveal("portal")), "secret_unreadable");
      await store.close();
    } finally {
      await r.close();
    }
  });

  test("secretRegistry refuses errand's own and provider variables, files under ERRAND_HOME, and short values", async () => {
    const env = { ERRAND_OWNER_PASSWORD: CANARY, KERNEL_API_KEY: CANARY, PORTAL_PW: CANARY, SHORT: "1234", PIN_SPACED: "12 34 56 7" };
    const r = await openRegistry(env);
    try {
      const sites = ["https://portal.example.com"];
      for (const variable of [
        "ERRAND_OWNER_PASSWORD",
        "errand_owner_password",
        "KERNEL_API_KEY",
        "BROWSERLESS_TOKEN",
        "BROWSERBASE_API_KEY",
        "STEEL_API_KEY",
        "Steel_Api_Key",
      ]) {
        assert.equal(await codeOf(r.registry.set("x", sites, { kind: "env", variable })), "secret_source_refused", variable);
      }
      assert.equal(await codeOf(r.registry.set("x", sites, { kind: "file", path: join(r.h.home, "keys", "master.key") })), "secret_source_refused");
      assert.equal(await codeOf(r.registry.set("x", sites, { kind: "file", path: join(r.h.home, "keys", "..", "errand.db") })), "secret_source_refused");
      assert.equal(await codeOf(r.registry.set("x", sites, { kind: "stored", value: "2024" })), "secret_value_refused");
      assert.equal(
        await codeOf(r.registry.set("x", sites, { kind: "stored", value: "abc def g" })),
        "secret_value_refused",
        "whitespace does not count toward the minimum",
      );
      assert.equal(await codeOf(r.registry.set("x", sites, { kind: "stored", value: `${CANARY}\nsecond line` })), "secret_value_refused");
      assert.equal(await codeOf(r.registry.set("x", sites, { kind: "env", variable: "SHORT" })), "secret_value_refused");
      assert.equal(await codeOf(r.registry.set("1x", sites, { kind: "stored", value: CANARY })), "invalid_secret_name");
      assert.equal(await codeOf(r.registry.set("x", ["https://a.example/path"], { kind: "stored", value: CANARY })), "invalid_secret_site");
      assert.equal((await r.registry.list()).length, 0, "nothing refused was stored");
      assert.equal(await codeOf(r.registry.set("x", sites, { kind: "env", variable: "PORTAL_PW" })), "ok");
      assert.equal((await r.registry.reveal("x")).value, CANARY);
    } finally {
      await r.close();
    }
  });

  test("secretRegistry reads --from-env and --from-file sources at use: unset is secret_missing, one trailing newline dropped", async () => {
    const env: NodeJS.ProcessEnv = {};
    const r = await openRegistry(env);
    try {
      const sites = ["https://portal.example.com"];
      const set = await r.registry.set("fromEnv", sites, { kind: "env", variable: "LATER_VAR" });
      assert.equal(set.sourceReadable, false);
      assert.equal(await codeOf(r.registry.reveal("fromEnv")), "secret_missing");
      env["LATER_VAR"] = CANARY;
      assert.equal((await r.registry.reveal("fromEnv")).value, CANARY);
      const file = join(r.h.home, "..", `secret-${randomBytes(4).toString("hex")}.txt`);
      writeFileSync(file, `${CANARY}\n`);
      await r.registry.set("fromFile", sites, { kind: "file", path: file });
      assert.equal((await r.registry.reveal("fromFile")).value, CANARY);
      writeFileSync(file, "");
      assert.equal(await codeOf(r.registry.reveal("fromFile")), "secret_missing");
      const listed = JSON.stringify(await r.registry.list());
      assert.ok(!listed.includes("LATER_VAR") && !listed.includes(file), "list shows the source kind, not where it points");
    } finally {
      await r.close();
    }
  });
});
