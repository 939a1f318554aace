// Rows that grant authority, from the side of an attacker who can write the database but does not
// hold the master key: on SQLite and on PostgreSQL, a replaced owner-password hash, an un-revoked
// API token and MACs swapped between rows grant nothing, and `errand journal verify` and
// `errand doctor` name each such row (table and id, never the secret material).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { openSqliteDatabase } from "../../src/store/sqlite/sqliteBinding.js";
import { openAccessStoreAt, openOperationStore, openSecretStoreAt } from "../../src/app/openStores.js";
import { deriveSubkey } from "../../src/keys/loadKey.js";
import { createSealedBox } from "../../src/keys/sealedBox.js";
import { createSecretRegistry } from "../../src/secrets/createSecretRegistry.js";
import { SecretError } from "../../src/secrets/secretTypes.js";
import type { StoreLocation } from "../../src/app/storeLocation.js";
import { hashOwnerPassword, verifyOwnerPassword } from "../../src/interfaces/http/oauth/ownerPassword.js";
import { RowTamperedError } from "../../src/store/storeErrors.js";
import { migrate } from "../../src/store/sqlite/migrate.js";
import { MIGRATIONS } from "../../src/store/sqlite/migrations.js";
import { baseEnv, errandInProcess } from "../interfaces/cli/support/runInProcess.js";
import { openHarness } from "../operations/support/harness.js";
import type { Harness } from "../operations/support/harness.js";
import { freshTestDatabase, testDatabase, withSchemaClient } from "../fixtures/testPostgres.js";

const database = await testDatabase();
const dropped: (() => Promise<void>)[] = [];
after(async () => {
  for (const drop of dropped) await drop();
});

const ATTACKER_PASSWORD = "the attacker's own password";
const OWNER_PASSWORD = "the real owner's password";
const SECRET_CANARY = "Canary-Rows-5521-value";

/** Raw SQL on the store's database, as the attacker. */
type Sql = (text: string) => Promise<Record<string, unknown>[]>;

function sqlFor(location: StoreLocation): Sql {
  if (location.backend === "sqlite") {
    return (text) => {
      const db = openSqliteDatabase(location.path);
      try {
        const statement = db.prepare(text);
        return Promise.resolve(statement.reader ? (statement.all() as Record<string, unknown>[]) : (statement.run(), []));
      } finally {
        db.close();
      }
    };
  }
  return async (text) =>
    (await withSchemaClient(location.url, location.backend === "postgres" ? location.schema : undefined, (client) => client.query(text))).rows as Record<
      string,
      unknown
    >[];
}

/** A fresh store: a SQLite file, or a fresh PostgreSQL database (so the CLI can reach it by URL alone). */
async function openBackend(backend: "sqlite" | "postgres"): Promise<{ h: Harness; env: Record<string, string> }> {
  if (backend === "sqlite") {
    const h = await openHarness();
    return { h, env: baseEnv({ ERRAND_HOME: h.home }) };
  }
  const fresh = await freshTestDatabase(database.url ?? "", "errand_rows");
  dropped.push(() => fresh.drop());
  const h = await openHarness({ location: { backend: "postgres", url: fresh.url } });
  return { h, env: baseEnv({ ERRAND_HOME: h.home, ERRAND_DATABASE_URL: fresh.url }) };
}

for (const backend of ["sqlite", "postgres"] as const) {
  const skip = backend === "postgres" ? database.skip : undefined;
  describe(`rows that grant authority (${backend})`, skip === undefined ? {} : { skip }, () => {
    test("a replaced owner hash, an un-revoked token and swapped MACs grant nothing; journal verify and doctor name each row", async () => {
      const { h, env } = await openBackend(backend);
      const access = openAccessStoreAt(h.location, { sealer: h.sealer });
      const sql = sqlFor(h.location);
      try {
        await access.writeOwnerSecret(await hashOwnerPassword(OWNER_PASSWORD));
        await access.createApiToken({ tokenId: "tok_revoked", name: "old", tokenHash: "h-revoked".padEnd(64, "0") });
        await access.createApiToken({ tokenId: "tok_a", name: "a", tokenHash: "h-a".padEnd(64, "0") });
        await access.createApiToken({ tokenId: "tok_b", name: "b", tokenHash: "h-b".padEnd(64, "0") });
        assert.equal((await access.revokeApiToken("tok_revoked"))?.tokenId, "tok_revoked");
        assert.ok(await verifyOwnerPassword(OWNER_PASSWORD, (await access.readOwnerSecret()) ?? ""));
        assert.equal((await access.readApiToken("h-a".padEnd(64, "0")))?.tokenId, "tok_a");
        assert.deepEqual(await h.service.findUnauthenticRows(), [], "rows written with the key pass");
        const clean = await errandInProcess(["journal", "verify"], env);
        assert.equal(clean.code, 0, clean.stdout + clean.stderr);

        // The attacker's own valid scrypt hash replaces the owner's.
        const attackerHash = await hashOwnerPassword(ATTACKER_PASSWORD);
        await sql(`UPDATE owner_secret SET encoded = '${attackerHash}'`);
        await assert.rejects(
          access.readOwnerSecret(),
          (error: unknown) => error instanceof RowTamperedError && error.code === "journal_tampered" && !error.message.includes(attackerHash),
        );
        // Revocation lives under the MAC: setting revoked_ms back to NULL does not bring the token back.
        await sql("UPDATE api_tokens SET revoked_ms = NULL WHERE token_id = 'tok_revoked'");
        assert.equal(await access.readApiToken("h-revoked".padEnd(64, "0")), undefined, "an un-revoked token stays refused");
        // A MAC copied from one row to another verifies for neither the swapped row nor any other.
        const [a] = await sql("SELECT mac FROM api_tokens WHERE token_id = 'tok_a'");
        await sql(`UPDATE api_tokens SET mac = '${String(a?.["mac"])}' WHERE token_id = 'tok_b'`);
        assert.equal(await access.readApiToken("h-b".padEnd(64, "0")), undefined, "a row carrying another row's MAC is refused");
        assert.equal((await access.readApiToken("h-a".padEnd(64, "0")))?.tokenId, "tok_a", "the untouched row still works");
        // A row inserted without the key (no MAC, or a made-up one) grants nothing either.
        await sql(
          "INSERT INTO api_tokens (token_id, name, token_hash, created_ms, revoked_ms, mac) VALUES ('tok_forged', 'forged', 'h-forged', 1, NULL, NULL)",
        );
        assert.equal(await access.readApiToken("h-forged"), undefined);
        const listed = await access.listApiTokens();
        assert.deepEqual(
          listed
            .filter((t) => !t.authentic)
            .map((t) => t.tokenId)
            .sort(),
          ["tok_b", "tok_forged", "tok_revoked"],
        );

        const expected = [
          { table: "owner_secret", id: "the owner password" },
          { table: "api_tokens", id: "tok_b" },
          { table: "api_tokens", id: "tok_forged" },
          { table: "api_tokens", id: "tok_revoked" },
        ];
        const sorted = (rows: { table: string; id: string }[]) => [...rows].sort((x, y) => `${x.table} ${x.id}`.localeCompare(`${y.table} ${y.id}`));
        assert.deepEqual(sorted(await h.service.findUnauthenticRows()), sorted(expected));

        const verify = await errandInProcess(["journal", "verify"], env);
        assert.equal(verify.code, 1, verify.stdout);
        for (const row of expected) assert.match(verify.stdout, new RegExp(`TAMPERED row: ${row.table} ${row.id} `));
        const verifyJson = await errandInProcess(["journal", "verify", "--json"], env);
        assert.equal(verifyJson.code, 1);
        assert.deepEqual(
          sorted((JSON.parse(verifyJson.stdout) as { data: { unauthenticRows: { table: string; id: string }[] } }).data.unauthenticRows),
          sorted(expected),
        );
        const doctor = await errandInProcess(["doctor", "--offline", "--json"], env);
        assert.equal(doctor.code, 1);
        const checks = (JSON.parse(doctor.stdout) as { data: { checks: { name: string; ok: boolean; detail: string }[] } }).data.checks;
        const rows = checks.find((c) => c.name === "authority rows");
        assert.equal(rows?.ok, false, JSON.stringify(checks));
        for (const row of expected) assert.ok(rows.detail.includes(`${row.table} ${row.id}`), rows.detail);
        for (const output of [verify.stdout, verifyJson.stdout, doctor.stdout]) {
          assert.ok(!output.includes(attackerHash) && !output.includes("h-revoked") && !output.includes("h-b0"), "no hash is printed");
        }

        // The owner, who holds the key, takes the owner password back; revoking re-seals a row as revoked.
        await access.writeOwnerSecret(await hashOwnerPassword(OWNER_PASSWORD));
        assert.ok(await verifyOwnerPassword(OWNER_PASSWORD, (await access.readOwnerSecret()) ?? ""));
        assert.equal((await access.revokeApiToken("tok_b"))?.revokedMs !== null, true);
        assert.equal(await access.readApiToken("h-b".padEnd(64, "0")).then((t) => t?.revokedMs !== null), true);
      } finally {
        await access.close();
        await h.close();
      }
    });

    test("API token expiry is under the MAC: a cleared or later expiry grants nothing; last use and tokens without an expiry keep their MAC", async () => {
      const { h } = await openBackend(backend);
      const access = openAccessStoreAt(h.location, { sealer: h.sealer });
      const sql = sqlFor(h.location);
      const hash = (name: string) => `h-${name}`.padEnd(64, "0");
      try {
        const expiresMs = Date.now() + 60_000;
        await access.createApiToken({ tokenId: "tok_never", name: "never", tokenHash: hash("never") });
        await access.createApiToken({ tokenId: "tok_cleared", name: "cleared", tokenHash: hash("cleared"), expiresMs });
        await access.createApiToken({ tokenId: "tok_later", name: "later", tokenHash: hash("later"), expiresMs });
        await access.createApiToken({ tokenId: "tok_used", name: "used", tokenHash: hash("used"), scope: "metrics", expiresMs });
        assert.equal((await access.readApiToken(hash("cleared")))?.expiresMs, expiresMs);
        assert.equal((await access.readApiToken(hash("never")))?.expiresMs, null);
        await sql("UPDATE api_tokens SET expires_ms = NULL WHERE token_id = 'tok_cleared'");
        await sql(`UPDATE api_tokens SET expires_ms = ${expiresMs + 365 * 86_400_000} WHERE token_id = 'tok_later'`);
        assert.equal(await access.readApiToken(hash("cleared")), undefined, "a cleared expiry is refused");
        assert.equal(await access.readApiToken(hash("later")), undefined, "a later expiry is refused");
        await access.recordApiTokenUse("tok_used", Date.now());
        await access.recordApiTokenUse("tok_never", Date.now());
        const used = await access.readApiToken(hash("used"));
        assert.equal(used?.scope, "metrics");
        assert.equal(typeof used?.lastUsedMs, "number", "last use is recorded and outside the MAC");
        assert.equal((await access.readApiToken(hash("never")))?.tokenId, "tok_never");
        const rows = (await h.service.findUnauthenticRows()).map((r) => `${r.table} ${r.id}`).sort();
        assert.deepEqual(rows, ["api_tokens tok_cleared", "api_tokens tok_later"]);
      } finally {
        await access.close();
        await h.close();
      }
    });

    test("OAuth: a widened client, a reused code, an un-revoked grant, an unspent refresh token and swapped MACs grant nothing", async () => {
      const { h } = await openBackend(backend);
      const access = openAccessStoreAt(h.location, { sealer: h.sealer });
      const sql = sqlFor(h.location);
      const later = (await access.now()) + 3_600_000;
      const pair = (n: number) => ({
        accessHash: `a${n}`.padEnd(64, "0"),
        accessExpiresMs: later,
        refreshHash: `r${n}`.padEnd(64, "0"),
        refreshExpiresMs: later,
      });
      const family = (id: string, n: number) => ({ familyId: id, clientId: "c1", scopes: ["tasks"], resource: "http://h/mcp", ...pair(n) });
      const code = (hash: string) => ({
        codeHash: hash,
        clientId: "c1",
        redirectUri: "https://chatgpt.com/cb",
        codeChallenge: "x",
        scopes: ["tasks"],
        resource: "http://h/mcp",
        expiresMs: later,
        usedMs: null,
      });
      try {
        await access.registerClient(
          { clientId: "c1", secretHash: null, authMethod: "none", clientName: "one", redirectUris: ["https://chatgpt.com/cb"], metadata: {} },
          10,
        );
        await access.registerClient(
          { clientId: "c2", secretHash: null, authMethod: "none", clientName: "two", redirectUris: ["https://chatgpt.com/cb"], metadata: {} },
          10,
        );
        for (const [hash, id, n] of [
          ["code1", "f1", 1],
          ["code2", "f2", 2],
          ["code3", "f3", 3],
        ] as const) {
          await access.saveAuthorizationCode(code(hash));
          assert.deepEqual(await access.redeemAuthorizationCode(hash, family(id, n)), { kind: "redeemed" });
        }
        await access.saveAuthorizationCode(code("code4"));
        assert.deepEqual(await access.rotateRefreshToken(pair(2).refreshHash, pair(5), 45_000), { kind: "rotated", familyId: "f2", generation: 2 });
        assert.equal(await access.revokeTokenFamily(pair(3).accessHash, "c1", "test"), true);
        assert.equal((await access.readClient("c1"))?.clientName, "one");
        assert.deepEqual(await h.service.findUnauthenticRows(), [], "rows written with the key pass");

        // The attacker points the owner's approved client at their own redirect URI.
        await sql(`UPDATE oauth_clients SET redirect_uris = '["https://attacker.test/cb"]' WHERE client_id = 'c1'`);
        assert.equal(await access.readClient("c1"), undefined, "a client with widened redirect URIs is unknown");
        // A used code made unused again, and an unused one given more scopes.
        await sql("UPDATE oauth_codes SET used_ms = NULL, family_id = NULL WHERE code_hash = 'code1'");
        assert.deepEqual(await access.redeemAuthorizationCode("code1", family("f9", 9)), { kind: "missing" });
        await sql("UPDATE oauth_codes SET scopes = 'tasks admin' WHERE code_hash = 'code4'");
        assert.equal(await access.readAuthorizationCode("code4"), undefined);
        assert.deepEqual(await access.redeemAuthorizationCode("code4", family("f8", 8)), { kind: "missing" });
        // A revoked grant set back to live: its tokens stay refused.
        await sql("UPDATE oauth_families SET revoked_ms = NULL, revoked_reason = NULL WHERE family_id = 'f3'");
        assert.equal(await access.readToken(pair(3).accessHash), undefined, "an un-revoked grant's access token is refused");
        assert.deepEqual(await access.rotateRefreshToken(pair(3).refreshHash, pair(10), 45_000), { kind: "missing" });
        // A spent refresh token made unspent: it does not rotate (and is not even seen as a replay).
        await sql(`UPDATE oauth_tokens SET used_ms = NULL WHERE token_hash = '${pair(2).refreshHash}'`);
        assert.deepEqual(await access.rotateRefreshToken(pair(2).refreshHash, pair(11), 45_000), { kind: "missing" });
        assert.ok((await access.readToken(pair(5).accessHash)) !== undefined, "the grant's current tokens are untouched");
        // A token moved to another grant, and a family carrying another family's MAC.
        await sql(`UPDATE oauth_tokens SET family_id = 'f2' WHERE token_hash = '${pair(1).accessHash}'`);
        assert.equal(await access.readToken(pair(1).accessHash), undefined);
        const [f2] = await sql("SELECT mac FROM oauth_families WHERE family_id = 'f2'");
        await sql(`UPDATE oauth_families SET mac = '${String(f2?.["mac"])}' WHERE family_id = 'f1'`);
        assert.equal(await access.readToken(pair(1).refreshHash), undefined);

        const found = (await h.service.findUnauthenticRows()).map((r) => `${r.table} ${r.id}`).sort();
        assert.deepEqual(
          found,
          [
            "oauth_clients c1",
            "oauth_codes code code1… of client c1",
            "oauth_codes code code4… of client c1",
            "oauth_families f1",
            "oauth_families f3",
            `oauth_tokens access token ${pair(1).accessHash.slice(0, 8)}… of family f2`,
            `oauth_tokens refresh token ${pair(2).refreshHash.slice(0, 8)}… of family f2`,
          ].sort(),
        );

        // Revoking everything still works on every row, and seals each as revoked.
        assert.ok((await access.revokeAllTokenFamilies("owner")) >= 1);
        assert.equal(
          (await h.service.findUnauthenticRows()).some((r) => r.table === "oauth_families"),
          false,
          "revoked rows are sealed again as revoked",
        );
      } finally {
        await access.close();
        await h.close();
      }
    });

    test("secrets: a secret whose bound sites were widened, or whose row carries another's MAC, is never revealed, and verify names it", async () => {
      const { h, env } = await openBackend(backend);
      const store = openSecretStoreAt(h.location, { sealer: h.sealer });
      const registry = createSecretRegistry({ store, box: createSealedBox(deriveSubkey(h.key, "secrets")), env: {}, errandHome: h.home });
      const sql = sqlFor(h.location);
      try {
        await registry.set("portal", ["https://portal.example.com"], { kind: "stored", value: SECRET_CANARY });
        await registry.set("other", ["https://other.example.com"], { kind: "stored", value: `${SECRET_CANARY}-other` });
        assert.equal((await registry.reveal("portal")).value, SECRET_CANARY);
        await sql(`UPDATE secrets SET sites_json = '["https://attacker.test","https://portal.example.com"]' WHERE name = 'portal'`);
        const [other] = await sql("SELECT mac FROM secrets WHERE name = 'other'");
        await sql(`UPDATE secrets SET updated_ms = updated_ms + 1, mac = '${String(other?.["mac"])}' WHERE name = 'other'`);
        for (const name of ["portal", "other"]) {
          await assert.rejects(
            registry.reveal(name),
            (error: unknown) => error instanceof SecretError && error.code === "secret_unreadable" && !error.message.includes(SECRET_CANARY),
          );
          await assert.rejects(registry.lookup(name), (error: unknown) => error instanceof SecretError && error.code === "secret_unreadable");
        }
        const rows = (await h.service.findUnauthenticRows()).map((r) => `${r.table} ${r.id}`).sort();
        assert.deepEqual(rows, ["secrets other", "secrets portal"]);
        const verify = await errandInProcess(["journal", "verify"], env);
        assert.equal(verify.code, 1);
        assert.match(verify.stdout, /TAMPERED row: secrets portal /);
        assert.ok(!verify.stdout.toLowerCase().includes(SECRET_CANARY.toLowerCase()));
        // Declaring it again, with the key, is the way back.
        await registry.set("portal", ["https://portal.example.com"], { kind: "stored", value: SECRET_CANARY });
        assert.equal((await registry.reveal("portal")).value, SECRET_CANARY);
      } finally {
        await store.close();
        await h.close();
      }
    });
  });
}

describe("rows that exist when the MAC column is added", () => {
  test("are given their MACs by the migration, with the key, and keep working", async () => {
    const h = await openHarness();
    // Every migration before the first that adds a MAC column (later ones may assume those columns).
    const firstAuthenticating = Math.min(...MIGRATIONS.filter((m) => (m.authenticates ?? []).length > 0).map((m) => m.version));
    const before = MIGRATIONS.filter((m) => m.version < firstAuthenticating);
    const path = `${h.home}/older.db`;
    const db = openSqliteDatabase(path);
    try {
      migrate(db, before, path);
      db.prepare("INSERT INTO owner_secret (id, encoded, updated_ms) VALUES (1, ?, 1)").run(await hashOwnerPassword(OWNER_PASSWORD));
      db.prepare("INSERT INTO api_tokens (token_id, name, token_hash, created_ms, revoked_ms) VALUES ('tok_old', 'old', 'h-old', 1, NULL)").run();
      assert.throws(() => migrate(db, MIGRATIONS, path), /needs the master key/, "without the key nothing is MAC'd");
      migrate(db, MIGRATIONS, path, h.sealer);
    } finally {
      db.close();
    }
    const location: StoreLocation = { backend: "sqlite", path, busyTimeoutMs: 1000 };
    await openOperationStore(location, { sealer: h.sealer }).close();
    const access = openAccessStoreAt(location, { sealer: h.sealer });
    try {
      assert.ok(await verifyOwnerPassword(OWNER_PASSWORD, (await access.readOwnerSecret()) ?? ""));
      assert.equal((await access.readApiToken("h-old"))?.tokenId, "tok_old");
    } finally {
      await access.close();
      await h.close();
    }
  });
});

describe("doctor under another key", () => {
  test("says the rows were not checked because the key is not the journal's, instead of listing every row as tampered", async () => {
    const h = await openHarness();
    const access = openAccessStoreAt(h.location, { sealer: h.sealer });
    try {
      await access.createApiToken({ tokenId: "tok_a", name: "a", tokenHash: "h-a" });
      writeFileSync(join(h.home, "keys", "master.key"), `${randomBytes(32).toString("hex")}\n`, { mode: 0o600 });
      const doctor = await errandInProcess(["doctor", "--offline", "--json"], baseEnv({ ERRAND_HOME: h.home }));
      const rows = (JSON.parse(doctor.stdout) as { data: { checks: { name: string; ok: boolean; detail: string }[] } }).data.checks.find(
        (c) => c.name === "authority rows",
      );
      assert.equal(rows?.ok, false);
      assert.match(rows.detail, /not checked: keys\/master\.key is not the key this database's journal was written with/);
      assert.ok(!rows.detail.includes("tok_a"));
    } finally {
      await access.close();
      await h.close();
    }
  });
});
