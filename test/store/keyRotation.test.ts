// The master-key rotation in the store (store/rotateKeyInTransaction), on a real SQLite file and a
// real PostgreSQL schema: everything sealed or MAC'd under the old key moves to the new one in one
// transaction (journal chains, tombstones, checkpoint, head, rows that grant authority, secrets,
// saved sessions, owner files, held results, artifacts), HTTP credentials end, the rotation is
// recorded with the old key's handover; and every refusal or failure part-way leaves the old key
// fully in force, nothing changed.
import assert from "node:assert/strict";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { StoreLocation } from "../../src/app/storeLocation.js";
import {
  openAccessStoreAt,
  openFileStoreAt,
  openKeyRotationStoreAt,
  openOperationStore,
  openSecretStoreAt,
  openSiteStoreAt,
} from "../../src/app/openStores.js";
import { createOwnerFiles } from "../../src/files/createOwnerFiles.js";
import { verifyJournal } from "../../src/journal/verifyJournal.js";
import { verifyKeyHandovers } from "../../src/journal/verifyKeyHandovers.js";
import { deriveSubkey } from "../../src/keys/loadKey.js";
import { createSealedBox } from "../../src/keys/sealedBox.js";
import { createArtifactKeeping } from "../../src/operations/artifactKeeping.js";
import { createHeldResults } from "../../src/operations/heldResults.js";
import { createOperationsService } from "../../src/operations/createOperationsService.js";
import { createResealers } from "../../src/rotation/createResealers.js";
import { journalSealerOf } from "../../src/rotation/masterKeyId.js";
import { createSecretRegistry } from "../../src/secrets/createSecretRegistry.js";
import { createSiteRegistry } from "../../src/sites/createSiteRegistry.js";
import type { SavedSession } from "../../src/sites/siteTypes.js";
import type { Resealers } from "../../src/store/KeyRotationStore.js";
import { KeyRotationRefusedError } from "../../src/store/storeErrors.js";
import { openSqliteDatabase } from "../../src/store/sqlite/sqliteBinding.js";
import { carriesCanary } from "../secrets/support/secretSites.js";
import { dropSchemas, freshPostgresLocation, testDatabase, withSchemaClient } from "../fixtures/testPostgres.js";
import { createFakeExecutor } from "../operations/support/fakeExecutor.js";
import type { Harness } from "../operations/support/harness.js";
import { manualClock, openHarness, REVERSIBLE_WRITES_UNATTENDED } from "../operations/support/harness.js";
import { readTask, writeTask } from "../operations/support/tasks.js";
import { DAY } from "../../src/config/units.js";
import type { ScreenshotRecord } from "../../src/receipt/artifactTypes.js";
import { sampleReceipt } from "../support/sampleReceipt.js";

const SECRET_CANARY = "Rotate-Secret-Canary-7719";
const COOKIE_CANARY = "Rotate-Cookie-Canary-3301";
const FILE_CANARY = "Rotate-File-Canary-5521";
const HELD_CANARY = "Rotate-Held-Canary-8842";
const ARTIFACT_CANARY = "Rotate-Artifact-Canary-6063";
const CANARIES = [SECRET_CANARY, COOKIE_CANARY, FILE_CANARY, HELD_CANARY, ARTIFACT_CANARY];
const ARTIFACT_BYTES = Buffer.from(`\x89PNG ${ARTIFACT_CANARY}`);
const ARTIFACT: ScreenshotRecord = {
  kind: "screenshot",
  moment: "final",
  index: 0,
  mediaType: "image/png",
  bytes: ARTIFACT_BYTES.length,
  sha256: createHash("sha256").update(ARTIFACT_BYTES).digest("hex"),
};

const database = await testDatabase();
const created: string[] = [];
after(async () => {
  if (database.url !== undefined) await dropSchemas(database.url, created);
});

interface Backend {
  name: string;
  skip?: string;
  location: (home: string) => StoreLocation | undefined;
  /** Every row of every table, as one text (what someone who copies the database holds). */
  dump: (h: Harness) => Promise<string>;
  exec: (h: Harness, sql: string) => Promise<void>;
}

const SQLITE_TABLES = "SELECT name FROM sqlite_master WHERE type = 'table'";

const backends: Backend[] = [
  {
    name: "SQLite",
    location: () => undefined,
    dump: (h) => {
      const db = openSqliteDatabase(h.dbPath, { readonly: true });
      try {
        const tables = (db.prepare(SQLITE_TABLES).all() as { name: string }[]).map((t) => t.name);
        return Promise.resolve(JSON.stringify(tables.map((t) => db.prepare(`SELECT * FROM "${t}"`).all())));
      } finally {
        db.close();
      }
    },
    exec: (h, sql) => {
      const db = openSqliteDatabase(h.dbPath);
      try {
        db.exec(sql);
        return Promise.resolve();
      } finally {
        db.close();
      }
    },
  },
  {
    name: "PostgreSQL",
    ...(database.skip === undefined ? {} : { skip: database.skip }),
    location: () => freshPostgresLocation(database.url ?? "", created),
    dump: (h) => {
      const pg = h.location as { url: string; schema?: string };
      return withSchemaClient(pg.url, pg.schema, async (client) => {
        const tables = (await client.query<{ tablename: string }>("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")).rows.map(
          (r) => r.tablename,
        );
        const all = [];
        for (const t of tables) all.push((await client.query(`SELECT * FROM "${t}"`)).rows);
        return JSON.stringify(all);
      });
    },
    exec: async (h, sql) => {
      const pg = h.location as { url: string; schema?: string };
      await withSchemaClient(pg.url, pg.schema, (client) => client.query(sql));
    },
  },
];

const session = (): SavedSession => ({
  cookies: [{ name: "sid", value: COOKIE_CANARY, domain: "library.example.com", path: "/", expires: -1, httpOnly: true, secure: true, sameSite: "Lax" }],
  origins: [],
});

/** What one home holds under its key: everything a rotation must carry. */
async function populate(h: Harness, clock: { advance(ms: number): void }): Promise<{ heldId: string; artifactId: string }> {
  const sealer = h.sealer;
  // Old finished operations, compacted into tombstones (the journal's own chain folded too), then live ones.
  await h.service.submit(readTask(randomUUID()));
  await h.service.submit(writeTask(randomUUID()));
  await h.service.runQueue();
  // An operation-less event old enough for compaction to fold into the head (a folded base).
  await h.secrets().set("early", ["https://portal.example.com"], { kind: "env", variable: "EARLY_VALUE" });
  clock.advance(40 * DAY);
  const compacted = await h.service.compactJournal({ olderThanMs: 30 * DAY });
  assert.ok(compacted.ok && compacted.operations === 2, JSON.stringify(compacted));
  const heldId = randomUUID();
  const artifactId = randomUUID();
  await h.service.submit(readTask(heldId));
  await h.service.submit(readTask(artifactId));
  await h.service.submit(readTask(randomUUID(), "fail-once"));
  await h.service.runQueue();

  const secrets = h.secrets();
  await secrets.set("portal_pw", ["https://portal.example.com"], { kind: "stored", value: SECRET_CANARY });
  await h.files().add("statement.pdf", Buffer.from(`%PDF ${FILE_CANARY}`));
  const siteStore = openSiteStoreAt(h.location, { sealer });
  try {
    const sites = createSiteRegistry({ store: siteStore, box: createSealedBox(deriveSubkey(h.key, "sites")), publicUrl: null });
    await sites.define({ name: "library", origins: ["https://library.example.com"] });
    const site = await sites.lookup("library");
    assert.ok(site !== null);
    await sites.saveSession(site, session(), "saved");
    await sites.allow("library", { risk: "reversible_write", secrets: [], via: "cli" });
  } finally {
    await siteStore.close();
  }
  const held = await h.store.readOperation(heldId);
  assert.ok(held?.kind === "live");
  await createHeldResults(h.store, h.key, DAY).hold(heldId, held.operation.requestDigest, held.operation.attempts, {
    ephemeral: true,
    outputs: { balance: HELD_CANARY },
  });
  const withArtifact = await h.store.readOperation(artifactId);
  assert.ok(withArtifact?.kind === "live" && h.artifactStore !== undefined);
  await createArtifactKeeping(h.artifactStore, h.key, DAY).keep(artifactId, withArtifact.operation.requestDigest, withArtifact.operation.attempts, "full", [
    { ...ARTIFACT, data: ARTIFACT_BYTES },
  ]);

  const access = openAccessStoreAt(h.location, { sealer });
  try {
    await access.writeOwnerSecret("scrypt$owner-password-hash");
    await access.createApiToken({ tokenId: "tok_1", name: "ci", tokenHash: "a".repeat(64) });
    await access.registerClient(
      { clientId: "public-client", secretHash: null, authMethod: "none", clientName: "ChatGPT", redirectUris: ["https://chatgpt.com/cb"], metadata: {} },
      10,
    );
    await access.registerClient(
      {
        clientId: "secret-client",
        secretHash: "b".repeat(64),
        authMethod: "client_secret_post",
        clientName: "Other",
        redirectUris: ["https://other.example/cb"],
        metadata: {},
      },
      10,
    );
    await access.saveAuthorizationCode({
      codeHash: "c".repeat(64),
      clientId: "public-client",
      redirectUri: "https://chatgpt.com/cb",
      codeChallenge: "x",
      scopes: ["errand"],
      resource: "https://errand.example/mcp",
      expiresMs: Date.UTC(2030, 0, 1),
      usedMs: null,
    });
    const redeemed = await access.redeemAuthorizationCode("c".repeat(64), {
      familyId: "fam_1",
      clientId: "public-client",
      scopes: ["errand"],
      resource: "https://errand.example/mcp",
      accessHash: "d".repeat(64),
      accessExpiresMs: Date.UTC(2030, 0, 1),
      refreshHash: "e".repeat(64),
      refreshExpiresMs: Date.UTC(2030, 0, 1),
    });
    assert.equal(redeemed.kind, "redeemed");
  } finally {
    await access.close();
  }
  return { heldId, artifactId };
}

async function openHome(backend: Backend) {
  const clock = manualClock(Date.now());
  const fake = createFakeExecutor();
  const home = makeHome();
  const location = backend.location(home);
  const h = await openHarness({
    home,
    clock: clock.now,
    execute: fake.execute,
    config: REVERSIBLE_WRITES_UNATTENDED,
    ...(location === undefined ? {} : { location }),
  });
  return { h, clock };
}

const homes: string[] = [];
function makeHome(): string {
  const home = mkdtempSync(join(tmpdir(), "errand-rotate-"));
  homes.push(home);
  return home;
}
after(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

async function rotate(h: Harness, next: Buffer, reseal: Resealers = createResealers(h.key, next)) {
  const store = openKeyRotationStoreAt(h.location, { sealer: h.sealer });
  try {
    return await store.rotateKey({ from: h.sealer, to: journalSealerOf(next), reseal });
  } finally {
    await store.close();
  }
}

for (const backend of backends) {
  describe(`key rotation in the store (${backend.name})`, backend.skip === undefined ? {} : { skip: backend.skip }, () => {
    test("everything sealed or MAC'd moves to the new key in one transaction; the old key opens and verifies nothing; the journal records the handover", async () => {
      const { h, clock } = await openHome(backend);
      try {
        const { heldId, artifactId } = await populate(h, clock);
        const before = await verifyJournal(h.store, h.sealer);
        assert.ok(before.ok, JSON.stringify(before));
        const next = randomBytes(32);
        const nextSealer = journalSealerOf(next);
        const report = await rotate(h, next);
        assert.deepEqual(report.resealed, { secrets: 2, siteSessions: 1, ownerFiles: 1, heldResults: 1, artifacts: 1 });
        assert.deepEqual(report.dropped, { heldResults: 0, artifacts: 0 });
        assert.deepEqual(report.ended, { apiTokens: 1, oauthGrants: 1, oauthClients: 1 });
        assert.equal(report.resigned.operations, 3);
        assert.equal(report.resigned.tombstones, 2);
        assert.equal(report.fromKeyId, h.sealer.keyId);
        assert.equal(report.toKeyId, nextSealer.keyId);

        const store = openOperationStore(h.location, { sealer: nextSealer });
        try {
          const after = await verifyJournal(store, nextSealer);
          assert.ok(after.ok, JSON.stringify(after));
          assert.equal(after.tombstones, 2);
          assert.ok(after.baseSeq > 0, "the journal's own chain had a folded base, kept across the rotation");
          assert.equal(after.checkpointed, 3, "the rotation wrote a checkpoint of every live operation");
          assert.deepEqual(await store.findUnauthenticRows(), []);
          const old = await verifyJournal(store, h.sealer);
          assert.ok(!old.ok && old.fault === "wrong_key");
          assert.deepEqual(
            (await verifyKeyHandovers(store, [h.sealer])).map((r) => [r.fromKeyId, r.toKeyId, r.handover]),
            [[h.sealer.keyId, nextSealer.keyId, "verified"]],
          );
          assert.deepEqual(
            (await verifyKeyHandovers(store, [])).map((r) => r.handover),
            ["key_not_kept"],
          );

          // Work goes on under the new key; a process still holding the old one changes nothing.
          const service = createOperationsService({ store, sealer: nextSealer, digestKey: next, config: h.config, execute: createFakeExecutor().execute });
          const fresh = await service.submit(readTask(randomUUID()));
          assert.ok(fresh.ok, JSON.stringify(fresh));
          assert.equal((await service.runQueue()).attempts.length, 1);
          // Refused either as an answer or as the store's error, with the same code.
          const stale: unknown = await h.service.submit(readTask(randomUUID())).catch((error: unknown) => error);
          assert.equal((stale as { code?: unknown }).code, "journal_tampered", JSON.stringify(stale));
          assert.ok((await verifyJournal(store, nextSealer)).ok);

          // The held result and the artifact open under the new key, not the old.
          const held = await store.readOperation(heldId);
          assert.ok(held?.kind === "live");
          assert.deepEqual((await createHeldResults(store, next, DAY).read(held.operation))?.outputs, { balance: HELD_CANARY });
          assert.equal(await createHeldResults(store, h.key, DAY).read(held.operation), undefined);
          const withArtifact = await store.readOperation(artifactId);
          assert.ok(withArtifact?.kind === "live" && h.artifactStore !== undefined);
          const receipt = sampleReceipt({ status: "PASS", attempts: withArtifact.operation.attempts, evidenceRetention: "full", artifacts: [ARTIFACT] });
          const opened = await createArtifactKeeping(h.artifactStore, next, DAY).read(withArtifact.operation, receipt, 0);
          assert.ok(opened.ok, JSON.stringify(opened));
          assert.ok((await createArtifactKeeping(h.artifactStore, h.key, DAY).read(withArtifact.operation, receipt, 0)).ok === false);
        } finally {
          await store.close();
        }

        // The secret, the saved session and the owner file open under the new key, not the old.
        const secretStore = openSecretStoreAt(h.location, { sealer: nextSealer });
        const siteStore = openSiteStoreAt(h.location, { sealer: nextSealer });
        const fileStore = openFileStoreAt(h.location, { sealer: nextSealer });
        const access = openAccessStoreAt(h.location, { sealer: nextSealer });
        try {
          const secrets = createSecretRegistry({ store: secretStore, box: createSealedBox(deriveSubkey(next, "secrets")), env: {}, errandHome: h.home });
          const revealed = await secrets.reveal("portal_pw");
          assert.equal(revealed.value, SECRET_CANARY);
          const oldSecrets = createSecretRegistry({ store: secretStore, box: createSealedBox(deriveSubkey(h.key, "secrets")), env: {}, errandHome: h.home });
          await assert.rejects(oldSecrets.reveal("portal_pw"), /cannot be opened/);
          const sites = createSiteRegistry({ store: siteStore, box: createSealedBox(deriveSubkey(next, "sites")), publicUrl: null });
          const site = await sites.lookup("library");
          assert.ok(site !== null);
          assert.equal((await sites.openSession(site))?.cookies[0]?.value, COOKIE_CANARY);
          assert.equal((await sites.liveGrants("library")).length, 1, "the standing grant's row MAC moved with the key");
          const files = createOwnerFiles(fileStore, createSealedBox(deriveSubkey(next, "owner-files")));
          assert.equal((await files.read("statement.pdf")).toString(), `%PDF ${FILE_CANARY}`);
          await assert.rejects(createOwnerFiles(fileStore, createSealedBox(deriveSubkey(h.key, "owner-files"))).read("statement.pdf"), /does not open/);

          // HTTP credentials: hashes made under the old key can never be checked again, so they ended.
          const [token] = await access.listApiTokens();
          assert.ok(token !== undefined && token.revokedMs !== null && token.authentic);
          assert.equal(await access.readToken("d".repeat(64)), undefined);
          assert.equal(await access.readClient("secret-client"), undefined);
          assert.equal((await access.readClient("public-client"))?.clientName, "ChatGPT");
          assert.equal(await access.readOwnerSecret(), "scrypt$owner-password-hash", "the owner password's row MAC moved with the key");
        } finally {
          await secretStore.close();
          await siteStore.close();
          await fileStore.close();
          await access.close();
        }

        const dump = await backend.dump(h);
        for (const canary of CANARIES) assert.ok(!carriesCanary(dump, canary), `${canary} is in the database in clear`);
      } finally {
        await h.close();
      }
    });

    test("refused, nothing changed: an unfinished operation, a row that fails its MAC, a journal that does not verify", async () => {
      const { h, clock } = await openHome(backend);
      try {
        await populate(h, clock);
        const unchanged = async () => {
          const verdict = await verifyJournal(h.store, h.sealer);
          assert.ok(verdict.ok, JSON.stringify(verdict));
          assert.equal((await h.store.readJournalHead())?.keyId, h.sealer.keyId);
          assert.equal((await h.secrets().reveal("portal_pw")).value, SECRET_CANARY);
        };
        const queued = randomUUID();
        await h.service.submit(readTask(queued));
        await assert.rejects(
          rotate(h, randomBytes(32)),
          (error: unknown) =>
            error instanceof KeyRotationRefusedError && error.message.includes(`${queued} (queued)`) && error.message.includes("errand runner"),
        );
        await unchanged();
        await h.service.runQueue();

        await backend.exec(h, "UPDATE api_tokens SET name = 'renamed'");
        await assert.rejects(
          rotate(h, randomBytes(32)),
          (error: unknown) => error instanceof KeyRotationRefusedError && /api_tokens tok_1/.test(error.message),
        );
        await backend.exec(h, "DELETE FROM api_tokens");
        await unchanged();

        const live = (await h.store.listOperations({ limit: 1 }))[0];
        assert.ok(live !== undefined);
        await backend.exec(h, `UPDATE journal_events SET at_ms = at_ms + 1 WHERE operation_id = '${live.operationId}' AND chain_seq = 1`);
        await assert.rejects(
          rotate(h, randomBytes(32)),
          (error: unknown) => error instanceof KeyRotationRefusedError && /does not verify/.test(error.message) && error.message.includes(live.operationId),
        );
        assert.equal((await h.store.readJournalHead())?.keyId, h.sealer.keyId, "the key id is unchanged");
      } finally {
        await h.close();
      }
    });

    test("a failure part-way (a secret that does not open after others were re-sealed) rolls everything back: the old key stays fully in force", async () => {
      const { h, clock } = await openHome(backend);
      try {
        await populate(h, clock);
        const next = randomBytes(32);
        const real = createResealers(h.key, next);
        let sealedBefore = 0;
        const failing: Resealers = {
          ...real,
          secret: (sealed, secret) => {
            sealedBefore += 1;
            if (secret.name === "zz_last") throw new Error("sealed value cannot be opened (mac)");
            return real.secret(sealed, secret);
          },
        };
        await h.secrets().set("zz_last", ["https://portal.example.com"], { kind: "stored", value: "another-value-12" });
        const dumpBefore = await backend.dump(h);
        await assert.rejects(
          rotate(h, next, failing),
          (error: unknown) => error instanceof KeyRotationRefusedError && /zz_last/.test(error.message) && /Nothing was rotated/.test(error.message),
        );
        assert.equal(sealedBefore, 3, "two secrets were re-sealed before the failure");
        assert.equal(await backend.dump(h), dumpBefore, "not a byte of any row changed");
        assert.ok((await verifyJournal(h.store, h.sealer)).ok);
        assert.equal((await h.secrets().reveal("portal_pw")).value, SECRET_CANARY);
        assert.ok((await h.service.submit(readTask(randomUUID()))).ok, "the old key goes on working");
      } finally {
        await h.close();
      }
    });

    test("submits racing the rotation from a process holding the old key are either in it (re-signed) or refused: the journal verifies under the new key", async () => {
      const { h, clock } = await openHome(backend);
      try {
        await populate(h, clock);
        const next = randomBytes(32);
        const nextSealer = journalSealerOf(next);
        const outcomes = { created: 0, refused: 0 };
        let rotating = true;
        // A rotation is refused while an operation is unfinished, and a submit every 10 ms can keep one
        // unfinished between each queue run and rotation attempt (on PostgreSQL, every time): after a
        // few refusals the submitter holds off until the rotation is in, then races again.
        let holdOff = false;
        const racing = (async () => {
          while (rotating) {
            if (holdOff) {
              await sleep(10);
              continue;
            }
            const answer: unknown = await h.service.submit(readTask(randomUUID())).catch((error: unknown) => error);
            if ((answer as { ok?: unknown }).ok === true) outcomes.created += 1;
            else {
              assert.equal((answer as { code?: unknown }).code, "journal_tampered", JSON.stringify(answer));
              outcomes.refused += 1;
            }
            await sleep(10);
          }
        })();
        // Unfinished submits made before the rotation would refuse it: run them as they come.
        let report;
        for (let attempt = 1; ; attempt += 1) {
          if (attempt > 5) holdOff = true;
          await h.service.runQueue();
          try {
            report = await rotate(h, next);
            break;
          } catch (error) {
            if (!(error instanceof KeyRotationRefusedError && /not finished/.test(error.message))) throw error;
          }
        }
        holdOff = false;
        for (let waited = 0; outcomes.refused === 0 && waited < 5_000; waited += 10) await sleep(10);
        rotating = false;
        await racing;
        assert.ok(report.toKeyId === nextSealer.keyId && outcomes.refused > 0, JSON.stringify(outcomes));
        const store = openOperationStore(h.location, { sealer: nextSealer });
        try {
          const verdict = await verifyJournal(store, nextSealer);
          assert.ok(verdict.ok, JSON.stringify(verdict));
        } finally {
          await store.close();
        }
      } finally {
        await h.close();
      }
    });

    test("evidence that could never be served is dropped, not carried: a held result that does not open under the old key", async () => {
      const { h, clock } = await openHome(backend);
      try {
        const { heldId } = await populate(h, clock);
        const held = await h.store.readOperation(heldId);
        assert.ok(held?.kind === "live");
        await createHeldResults(h.store, randomBytes(32), DAY).hold(heldId, held.operation.requestDigest, held.operation.attempts, {
          ephemeral: true,
          outputs: { x: "y" },
        });
        const report = await rotate(h, randomBytes(32));
        assert.deepEqual([report.resealed.heldResults, report.dropped.heldResults], [0, 1]);
      } finally {
        await h.close();
      }
    });
  });
}
