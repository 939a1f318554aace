// The AccessStore on libSQL (@libsql/client, file:): single-use codes and refresh tokens, family
// revocation, the grace window for a retried refresh, client eviction, lockouts counted under
// contention, and rows edited without the key granting nothing; the journal verifies throughout.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "node:test";
import { createJournalSealer } from "../../../src/journal/createJournalSealer.js";
import { verifyJournal } from "../../../src/journal/verifyJournal.js";
import type { AccessStore, LockoutRecord, NewTokenPair } from "../../../src/store/AccessStore.js";
import { queryRow } from "../../../src/store/libsql/libsqlRows.js";
import { openLibsqlAccessStore } from "../../../src/store/libsql/openLibsqlAccessStore.js";
import { openLibsqlClient } from "../../../src/store/libsql/openLibsqlClient.js";
import { openLibsqlTestClient } from "../../fixtures/libsqlTestClient.js";
import { openLibsqlStore } from "../../../src/store/libsql/openLibsqlStore.js";
import type { Store } from "../../../src/store/Store.js";
import { RowTamperedError } from "../../../src/store/storeErrors.js";

const GRACE = 45_000;
const T0 = Date.UTC(2026, 0, 1);
const pair = (n: number, expiresMs: number): NewTokenPair => ({
  accessHash: `a${n}`.padEnd(64, "0"),
  accessExpiresMs: expiresMs,
  refreshHash: `r${n}`.padEnd(64, "0"),
  refreshExpiresMs: expiresMs,
});
const client1 = {
  clientId: "c1",
  secretHash: null,
  authMethod: "none" as const,
  clientName: "one",
  redirectUris: ["https://chatgpt.com/connector_platform_oauth_redirect"],
  metadata: {},
};

interface Harness {
  store: Store;
  access: AccessStore;
  /** A second access store on the same file, as another process would open it. */
  another: () => Promise<AccessStore>;
  /** Runs SQL on the file without the key, as someone with database access would. */
  sql: (text: string) => Promise<Record<string, unknown> | undefined>;
  clock: { now: number };
  verified: () => Promise<boolean>;
}

async function withAccess(body: (h: Harness) => Promise<void>): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), "errand-libsql-access-"));
  const url = pathToFileURL(join(home, "errand.db")).href;
  const sealer = createJournalSealer(randomBytes(32));
  const clock = { now: T0 };
  const options = { where: url, sealer, clock: () => clock.now };
  const store = await openLibsqlStore({ client: await openLibsqlTestClient({ url }), ...options });
  const opened: AccessStore[] = [];
  const another = async () => {
    const access = await openLibsqlAccessStore({ client: await openLibsqlTestClient({ url }), ...options });
    opened.push(access);
    return access;
  };
  const raw = await openLibsqlClient({ url });
  try {
    await body({
      store,
      access: await another(),
      another,
      sql: (text) => queryRow<Record<string, unknown>>(raw, text),
      clock,
      verified: async () => (await verifyJournal(store, sealer)).ok,
    });
  } finally {
    raw.close?.();
    for (const access of opened) await access.close();
    await store.close();
    rmSync(home, { recursive: true, force: true });
  }
}

test("libsql access store: codes and refresh tokens work once; a replay revokes the family; the journal verifies before and after compaction", () =>
  withAccess(async ({ store, access, clock, verified }) => {
    await access.registerClient(client1, 10);
    await access.saveAuthorizationCode({
      codeHash: "code1",
      clientId: "c1",
      redirectUri: "x",
      codeChallenge: "y",
      scopes: ["tasks"],
      resource: "http://h/mcp",
      expiresMs: clock.now + 1000,
      usedMs: null,
    });
    const family = { familyId: "f1", clientId: "c1", scopes: ["tasks"], resource: "http://h/mcp", ...pair(1, clock.now + 10_000) };
    assert.deepEqual(await access.redeemAuthorizationCode("code1", family), { kind: "redeemed" });
    assert.equal((await access.readClient("c1"))?.lastGrantMs, clock.now, "an approved client is marked");
    assert.deepEqual(await access.rotateRefreshToken(pair(1, 0).refreshHash, pair(2, clock.now + 10_000), GRACE), {
      kind: "rotated",
      familyId: "f1",
      generation: 2,
    });
    clock.now += GRACE + 1;
    assert.deepEqual(await access.rotateRefreshToken(pair(1, 0).refreshHash, pair(3, clock.now + 10_000), GRACE), { kind: "reused", familyId: "f1" });
    assert.notEqual((await access.readToken(pair(2, 0).accessHash))?.revokedMs, null, "the newest access token died with the family");
    assert.deepEqual(await access.rotateRefreshToken(pair(2, 0).refreshHash, pair(4, clock.now + 10_000), GRACE), { kind: "revoked" });
    assert.deepEqual(await access.redeemAuthorizationCode("code1", { ...family, familyId: "f2", ...pair(5, 0) }), { kind: "reused", revokedFamily: "f1" });
    assert.equal(await verified(), true);

    clock.now += 40 * 24 * 3600 * 1000;
    assert.ok((await access.purgeExpired(clock.now)) >= 4, "expired codes, tokens and families are forgotten");
    const compacted = await store.compact(clock.now - 1000);
    assert.ok(compacted.eventsRemoved > 0, "old auth events fold into the head");
    assert.equal(await verified(), true);
  }));

test("libsql access store: a refresh retried within the grace window changes nothing; racing exchanges from two connections make one rotation", () =>
  withAccess(async ({ access, another, clock, verified }) => {
    const later = () => clock.now + 3_600_000;
    await access.registerClient(client1, 10);
    const start = async (familyId: string, first: number) => {
      await access.saveAuthorizationCode({
        codeHash: `code-${familyId}`,
        clientId: "c1",
        redirectUri: "x",
        codeChallenge: "y",
        scopes: ["tasks"],
        resource: "http://h/mcp",
        expiresMs: later(),
        usedMs: null,
      });
      assert.deepEqual(
        await access.redeemAuthorizationCode(`code-${familyId}`, {
          familyId,
          clientId: "c1",
          scopes: ["tasks"],
          resource: "http://h/mcp",
          ...pair(first, later()),
        }),
        { kind: "redeemed" },
      );
    };
    await start("f1", 1);
    const rotatedAt = clock.now;
    assert.equal((await access.rotateRefreshToken(pair(1, 0).refreshHash, pair(2, later()), GRACE)).kind, "rotated");
    clock.now += GRACE;
    assert.deepEqual(await access.rotateRefreshToken(pair(1, 0).refreshHash, pair(2, later()), GRACE), {
      kind: "retried",
      familyId: "f1",
      generation: 2,
      rotatedMs: rotatedAt,
    });
    assert.equal((await access.readToken(pair(2, 0).accessHash))?.revokedMs, null, "the grant keeps working");
    assert.deepEqual(
      await access.rotateRefreshToken(pair(1, 0).refreshHash, pair(9, later()), GRACE),
      { kind: "reused", familyId: "f1" },
      "with any other pair it is reuse",
    );

    await start("f4", 31);
    const other = await another();
    const raced = await Promise.all(
      Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? access : other).rotateRefreshToken(pair(31, 0).refreshHash, pair(32, later()), GRACE)),
    );
    assert.deepEqual(raced.map((r) => r.kind).sort(), ["retried", "retried", "retried", "retried", "retried", "rotated"]);
    const token = await access.readToken(pair(32, 0).refreshHash);
    assert.deepEqual([token?.familyId, token?.generation, token?.usedMs, token?.revokedMs], ["f4", 2, null, null]);
    const raceCode = "code-race";
    await access.saveAuthorizationCode({
      codeHash: raceCode,
      clientId: "c1",
      redirectUri: "x",
      codeChallenge: "y",
      scopes: ["tasks"],
      resource: "http://h/mcp",
      expiresMs: later(),
      usedMs: null,
    });
    const redeemed = await Promise.all(
      [access, other].map((a, i) =>
        a.redeemAuthorizationCode(raceCode, { familyId: `race-${i}`, clientId: "c1", scopes: ["tasks"], resource: "http://h/mcp", ...pair(40 + i, later()) }),
      ),
    );
    assert.deepEqual(redeemed.map((r) => r.kind).sort(), ["redeemed", "reused"], "a code is redeemed once, however many try at once");
    assert.equal(await verified(), true);
  }));

test("libsql access store: clients are evicted oldest-unapproved first and refused when all are approved; lockouts from two connections are all counted", () =>
  withAccess(async ({ access, another, verified }) => {
    assert.deepEqual(await access.registerClient({ ...client1, clientId: "a" }, 2), { kind: "registered", evicted: null });
    assert.deepEqual(await access.registerClient({ ...client1, clientId: "b" }, 2), { kind: "registered", evicted: null });
    assert.deepEqual(await access.registerClient({ ...client1, clientId: "c" }, 2), { kind: "registered", evicted: "a" });
    for (const clientId of ["b", "c"])
      await access.saveAuthorizationCode({
        codeHash: `code-${clientId}`,
        clientId,
        redirectUri: "x",
        codeChallenge: "y",
        scopes: [],
        resource: "r",
        expiresMs: T0 + 1000,
        usedMs: null,
      });
    assert.deepEqual(await access.registerClient({ ...client1, clientId: "d" }, 2), { kind: "full" });

    const other = await another();
    const fail = (record: LockoutRecord, nowMs: number) => ({
      next: { ...record, failures: record.failures + 1, lastFailureMs: nowMs },
      result: record.failures + 1,
    });
    const counts = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? access : other).updateOwnerLockout("127.0.0.1", fail)));
    assert.deepEqual(
      [...counts].sort((x, y) => x - y),
      [1, 2, 3, 4, 5, 6, 7, 8],
      "every failure counted once",
    );
    assert.equal((await access.readOwnerLockout("127.0.0.1")).failures, 8);
    assert.equal(await access.clearOwnerLockouts(), 1);
    assert.equal((await access.readOwnerLockout("127.0.0.1")).failures, 0);
    assert.equal(await verified(), true);
  }));

test("libsql access store: a replaced owner hash, an un-revoked token, a swapped MAC and a forged row grant nothing, and are named; the owner takes them back", () =>
  withAccess(async ({ store, access, sql }) => {
    await access.writeOwnerSecret("owner-hash");
    for (const [tokenId, name] of [
      ["tok_revoked", "old"],
      ["tok_a", "a"],
      ["tok_b", "b"],
    ] as const)
      await access.createApiToken({ tokenId, name, tokenHash: `h-${name}`.padEnd(64, "0") });
    assert.equal((await access.revokeApiToken("old"))?.tokenId, "tok_revoked", "revoked by name");
    assert.equal(await access.readOwnerSecret(), "owner-hash");
    assert.deepEqual(await store.findUnauthenticRows(), [], "rows written with the key pass");

    await sql("UPDATE owner_secret SET encoded = 'attacker-hash'");
    await assert.rejects(access.readOwnerSecret(), RowTamperedError);
    await sql("UPDATE api_tokens SET revoked_ms = NULL WHERE token_id = 'tok_revoked'");
    assert.equal(await access.readApiToken("h-old".padEnd(64, "0")), undefined, "an un-revoked token stays refused");
    const a = await sql("SELECT mac FROM api_tokens WHERE token_id = 'tok_a'");
    await sql(`UPDATE api_tokens SET mac = '${String(a?.["mac"])}' WHERE token_id = 'tok_b'`);
    assert.equal(await access.readApiToken("h-b".padEnd(64, "0")), undefined, "a row carrying another row's MAC is refused");
    assert.equal((await access.readApiToken("h-a".padEnd(64, "0")))?.tokenId, "tok_a");
    await sql("INSERT INTO api_tokens (token_id, name, token_hash, created_ms, revoked_ms, mac) VALUES ('tok_forged', 'forged', 'h-forged', 1, NULL, NULL)");
    assert.equal(await access.readApiToken("h-forged"), undefined);
    assert.deepEqual(
      (await access.listApiTokens())
        .filter((t) => !t.authentic)
        .map((t) => t.tokenId)
        .sort(),
      ["tok_b", "tok_forged", "tok_revoked"],
    );
    const named = (await store.findUnauthenticRows()).map((r) => `${r.table} ${r.id}`).sort();
    assert.deepEqual(named, ["api_tokens tok_b", "api_tokens tok_forged", "api_tokens tok_revoked", "owner_secret the owner password"]);
    assert.ok(access.takeRowRefusals().length > 0);

    await access.writeOwnerSecret("owner-hash-2");
    assert.equal(await access.readOwnerSecret(), "owner-hash-2");
    assert.notEqual((await access.revokeApiToken("tok_b"))?.revokedMs, null);
    assert.equal(typeof (await access.readApiToken("h-b".padEnd(64, "0")))?.revokedMs, "number", "revoking re-seals the row as revoked");
    await access.recordApiTokenUse("tok_a", T0 + 5);
    assert.equal((await access.listApiTokens()).find((t) => t.tokenId === "tok_a")?.lastUsedMs, T0 + 5);
    assert.equal((await access.readApiToken("h-a".padEnd(64, "0")))?.authentic, true, "the last use is not under the MAC");
  }));
