// The SQLite AccessStore: single-use codes and refresh tokens, family revocation, and auth events
// that keep the journal verifiable through compaction.
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { openAccessStoreAt } from "../../src/app/openStores.js";
import type { NewTokenPair } from "../../src/store/AccessStore.js";
import { manualClock, openHarness } from "../operations/support/harness.js";
import { dropSchemas, freshPostgresLocation, testDatabase } from "../fixtures/testPostgres.js";

const GRACE = 45_000;
const pair = (n: number, expiresMs: number): NewTokenPair => ({
  accessHash: `a${n}`.padEnd(64, "0"),
  accessExpiresMs: expiresMs,
  refreshHash: `r${n}`.padEnd(64, "0"),
  refreshExpiresMs: expiresMs,
});

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
      const h = await openHarness({ clock: clock.now, ...where() });
      const access = openAccessStoreAt(h.location, { sealer: h.sealer, clock: clock.now });
      try {
        await access.registerClient(
          {
            clientId: "c1",
            secretHash: null,
            authMethod: "none",
            clientName: "one",
            redirectUris: ["https://chatgpt.com/connector_platform_oauth_redirect"],
            metadata: {},
          },
          10,
        );
        await access.saveAuthorizationCode({
          codeHash: "code1",
          clientId: "c1",
          redirectUri: "x",
          codeChallenge: "y",
          scopes: ["tasks"],
          resource: "http://h/mcp",
          expiresMs: clock.now() + 1000,
          usedMs: null,
        });
        const family = { familyId: "f1", clientId: "c1", scopes: ["tasks"], resource: "http://h/mcp", ...pair(1, clock.now() + 10_000) };
        assert.deepEqual(await access.redeemAuthorizationCode("code1", family), { kind: "redeemed" });
        assert.equal((await access.readClient("c1"))?.lastGrantMs, clock.now(), "an approved client is marked");
        assert.deepEqual(await access.rotateRefreshToken(pair(1, 0).refreshHash, pair(2, clock.now() + 10_000), GRACE), {
          kind: "rotated",
          familyId: "f1",
          generation: 2,
        });
        assert.deepEqual(await access.rotateRefreshToken(pair(1, 0).refreshHash, pair(3, clock.now() + 10_000), GRACE), { kind: "reused", familyId: "f1" });
        assert.notEqual((await access.readToken(pair(2, 0).accessHash))?.revokedMs, null, "the newest access token died with the family");
        assert.deepEqual(await access.rotateRefreshToken(pair(2, 0).refreshHash, pair(4, clock.now() + 10_000), GRACE), { kind: "revoked" });
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

    test("a refresh retried within the grace window with the pair its exchange created changes nothing; after the window, or once that pair was used, it revokes; racing retries make one rotation", async () => {
      const clock = manualClock();
      const h = await openHarness({ clock: clock.now, ...where() });
      const access = openAccessStoreAt(h.location, { sealer: h.sealer, clock: clock.now });
      const later = () => clock.now() + 3_600_000;
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
      try {
        await access.registerClient(
          {
            clientId: "c1",
            secretHash: null,
            authMethod: "none",
            clientName: "one",
            redirectUris: ["https://chatgpt.com/connector_platform_oauth_redirect"],
            metadata: {},
          },
          10,
        );
        await start("f1", 1);
        const rotatedAt = clock.now();
        assert.deepEqual(await access.rotateRefreshToken(pair(1, 0).refreshHash, pair(2, later()), GRACE), { kind: "rotated", familyId: "f1", generation: 2 });
        clock.advance(GRACE);
        assert.deepEqual(
          await access.rotateRefreshToken(pair(1, 0).refreshHash, pair(2, later()), GRACE),
          { kind: "retried", familyId: "f1", generation: 2, rotatedMs: rotatedAt },
          "at the end of the window it is still a retry",
        );
        assert.equal((await access.readToken(pair(2, 0).accessHash))?.revokedMs, null, "the grant keeps working");
        assert.deepEqual(
          await access.rotateRefreshToken(pair(1, 0).refreshHash, pair(9, later()), GRACE),
          { kind: "reused", familyId: "f1" },
          "with any other pair it is reuse",
        );
        assert.notEqual((await access.readToken(pair(2, 0).accessHash))?.revokedMs, null);

        await start("f2", 11);
        assert.equal((await access.rotateRefreshToken(pair(11, 0).refreshHash, pair(12, later()), GRACE)).kind, "rotated");
        assert.equal((await access.rotateRefreshToken(pair(12, 0).refreshHash, pair(13, later()), GRACE)).kind, "rotated");
        assert.deepEqual(
          await access.rotateRefreshToken(pair(11, 0).refreshHash, pair(12, later()), GRACE),
          { kind: "reused", familyId: "f2" },
          "its successor was used: the chain moved on",
        );

        await start("f3", 21);
        assert.equal((await access.rotateRefreshToken(pair(21, 0).refreshHash, pair(22, later()), GRACE)).kind, "rotated");
        clock.advance(GRACE + 1);
        assert.deepEqual(
          await access.rotateRefreshToken(pair(21, 0).refreshHash, pair(22, later()), GRACE),
          { kind: "reused", familyId: "f3" },
          "after the window it is reuse",
        );
        assert.notEqual((await access.readToken(pair(22, 0).refreshHash))?.revokedMs, null);

        await start("f4", 31);
        const raced = await Promise.all(Array.from({ length: 6 }, () => access.rotateRefreshToken(pair(31, 0).refreshHash, pair(32, later()), GRACE)));
        assert.deepEqual(raced.map((r) => r.kind).sort(), ["retried", "retried", "retried", "retried", "retried", "rotated"]);
        assert.ok(
          raced.every((r) => "familyId" in r && r.familyId === "f4" && "generation" in r && r.generation === 2),
          "one rotation, one family",
        );
        const token = await access.readToken(pair(32, 0).refreshHash);
        assert.deepEqual([token?.familyId, token?.generation, token?.usedMs, token?.revokedMs], ["f4", 2, null, null]);
        assert.equal((await h.service.verifyJournal()).ok, true);
      } finally {
        await access.close();
        await h.close();
      }
    });
  });
}
