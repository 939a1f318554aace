// The SQLite AccessStore: single-use codes and refresh tokens, family revocation, and auth events
// that keep the journal verifiable through compaction.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { openAccessStoreAt } from "../../src/app/openStores.js";
import type { NewTokenPair } from "../../src/store/AccessStore.js";
import { manualClock, openHarness } from "../operations/support/harness.js";
import { dropSchemas, freshPostgresLocation, testDatabase } from "../fixtures/testPostgres.js";

const pair = (n: number, expiresMs: number): NewTokenPair => ({ accessHash: `a${n}`.padEnd(64, "0"), accessExpiresMs: expiresMs, refreshHash: `r${n}`.padEnd(64, "0"), refreshExpiresMs: expiresMs });

const database = await testDatabase();
const schemas: string[] = [];
after(() => (database.url === undefined ? undefined : dropSchemas(database.url, schemas)));

for (const backend of ["sqlite", "postgres"] as const) {
  const skip = backend === "postgres" ? database.skip : undefined;
  /** The harness's store location for this backend: a temporary SQLite file, or a fresh PostgreSQL schema. */
  const where = () => (backend === "postgres" && database.url !== undefined ? { location: freshPostgresLocation(database.url, schemas) } : {});
  describe(`access store (${backend})`, skip === undefined ? {} : { skip }, () => {
    test("codes and refresh tokens work once; a replay revokes the family; the journal verifies before and after compaction", async () => {
      const clock = manualClock();
      const h = openHarness({ clock: clock.now, ...where() });
      const access = openAccessStoreAt(h.location, { sealer: h.sealer, clock: clock.now });
      try {
        await access.registerClient({ clientId: "c1", secretHash: null, authMethod: "none", clientName: "one", redirectUris: ["https://chatgpt.com/connector_platform_oauth_redirect"], metadata: {} }, 10);
        await access.saveAuthorizationCode({ codeHash: "code1", clientId: "c1", redirectUri: "x", codeChallenge: "y", scopes: ["tasks"], resource: "http://h/mcp", expiresMs: clock.now() + 1000, usedMs: null });
        const family = { familyId: "f1", clientId: "c1", scopes: ["tasks"], resource: "http://h/mcp", ...pair(1, clock.now() + 10_000) };
        assert.deepEqual(await access.redeemAuthorizationCode("code1", family), { kind: "redeemed" });
        assert.equal((await access.readClient("c1"))?.lastGrantMs, clock.now(), "an approved client is marked");
        assert.deepEqual(await access.rotateRefreshToken(pair(1, 0).refreshHash, pair(2, clock.now() + 10_000)), { kind: "rotated", familyId: "f1", generation: 2 });
        assert.deepEqual(await access.rotateRefreshToken(pair(1, 0).refreshHash, pair(3, clock.now() + 10_000)), { kind: "reused", familyId: "f1" });
        assert.notEqual((await access.readToken(pair(2, 0).accessHash))?.revokedMs, null, "the newest access token died with the family");
        assert.deepEqual(await access.rotateRefreshToken(pair(2, 0).refreshHash, pair(4, clock.now() + 10_000)), { kind: "revoked" });
        assert.deepEqual(await access.redeemAuthorizationCode("code1", { ...family, familyId: "f2", ...pair(5, 0) }), { kind: "reused", revokedFamily: "f1" });
        assert.equal((await h.service.verifyJournal()).ok, true);

        clock.advance(40 * 24 * 3600 * 1000);
        assert.ok((await access.purgeExpired(clock.now())) >= 4, "expired codes, tokens and families are forgotten");
        const compacted = await h.service.compactJournal({ olderThanMs: 1000 });
        assert.ok(compacted.ok && compacted.eventsRemoved > 0, "old auth events fold into the head");
        assert.equal((await h.service.verifyJournal()).ok, true);
      } finally {
        await access.close();
        await h.close();
      }
    });
  });
}
