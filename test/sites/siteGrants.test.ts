// The owner's standing grants on both stores (a real SQLite file and a real PostgreSQL schema):
// given and revoked only through the registry, journaled, and each row under a MAC, so a grant
// whose risk was widened, whose expiry was extended or whose revocation was cleared in the database
// grants nothing, and journal verify names it.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, describe, test } from "node:test";
import { openSqliteDatabase } from "../../src/store/sqlite/sqliteBinding.js";
import { openOperationStore, openSiteStoreAt } from "../../src/app/openStores.js";
import type { StoreLocation } from "../../src/app/storeLocation.js";
import { createJournalSealer } from "../../src/journal/createJournalSealer.js";
import { verifyJournal } from "../../src/journal/verifyJournal.js";
import { deriveSubkey } from "../../src/keys/loadKey.js";
import { createSealedBox } from "../../src/keys/sealedBox.js";
import { createSiteRegistry } from "../../src/sites/createSiteRegistry.js";
import { SiteError } from "../../src/sites/siteTypes.js";
import { sqliteStorePath } from "../../src/store/sqlite/sqliteStorePath.js";
import { dropSchemas, freshPostgresLocation, testDatabase, withSchemaClient } from "../fixtures/testPostgres.js";
import { makeTempHome } from "../operations/support/harness.js";

const database = await testDatabase();
const created: string[] = [];
after(async () => {
  if (database.url !== undefined) await dropSchemas(database.url, created);
});

type Exec = (location: StoreLocation, sql: string) => Promise<void>;
const sqliteExec: Exec = (location, sql) => {
  const db = openSqliteDatabase((location as { path: string }).path);
  try {
    db.exec(sql);
    return Promise.resolve();
  } finally {
    db.close();
  }
};
const postgresExec: Exec = async (location, sql) => {
  const pg = location as { url: string; schema?: string };
  await withSchemaClient(pg.url, pg.schema, (client) => client.query(sql));
};

async function grantsOn(location: StoreLocation, exec: Exec): Promise<void> {
  const key = randomBytes(32);
  const sealer = createJournalSealer(deriveSubkey(key, "journal"));
  const store = openSiteStoreAt(location, { sealer });
  let offsetMs = 0;
  const registry = createSiteRegistry({ store, box: createSealedBox(deriveSubkey(key, "sites")), publicUrl: null, clock: () => Date.now() + offsetMs });
  try {
    await registry.define({ name: "library", origins: ["https://library.example.com"] });
    await registry.define({ name: "bank", origins: ["https://bank.example.com"] });
    await assert.rejects(
      registry.allow("nowhere", { risk: "reversible_write", secrets: [], via: "cli" }),
      (e: unknown) => e instanceof SiteError && e.code === "site_unknown",
    );
    await assert.rejects(
      registry.allow("library", { risk: "read_only" as never, secrets: [], via: "cli" }),
      (e: unknown) => e instanceof SiteError && e.code === "invalid_site",
    );
    await assert.rejects(
      registry.allow("library", { risk: "reversible_write", secrets: [], durationMs: 91 * 86_400_000, via: "cli" }),
      (e: unknown) => e instanceof SiteError && /at most 90d/.test(e.message),
    );

    const grant = await registry.allow("library", { risk: "reversible_write", secrets: ["LIB_PIN", "LIB_PIN"], via: "cli" });
    assert.deepEqual([grant.risk, grant.secrets], ["reversible_write", ["LIB_PIN"]]);
    const days = (Date.parse(grant.expiresAt) - Date.parse(grant.grantedAt)) / 86_400_000;
    assert.equal(days, 30, "30 days by default");
    const live = await registry.liveGrants("library");
    assert.deepEqual(
      live.map((g) => [g.grantId, g.risk, g.secrets, g.origins]),
      [[grant.id, "reversible_write", ["LIB_PIN"], ["https://library.example.com"]]],
    );
    assert.deepEqual(await registry.liveGrants("bank"), [], "a grant on one site is not another's");
    assert.deepEqual(
      (await registry.show("library"))?.grants.map((g) => g.id),
      [grant.id],
    );

    // Expiry: past its end it is not live.
    offsetMs = 31 * 86_400_000;
    assert.deepEqual(await registry.liveGrants("library"), [], "an expired grant is not live");
    offsetMs = 0;

    // Edited rows grant nothing: risk widened, expiry extended, revocation cleared.
    const short = await registry.allow("bank", { risk: "reversible_write", secrets: [], durationMs: 3_600_000, via: "cli" });
    await exec(location, `UPDATE site_grants SET risk = 'consequential' WHERE grant_id = '${grant.id}'`);
    assert.deepEqual(await registry.liveGrants("library"), [], "a widened grant grants nothing");
    await exec(location, `UPDATE site_grants SET expires_ms = expires_ms + 8640000000 WHERE grant_id = '${short.id}'`);
    offsetMs = 2 * 3_600_000;
    assert.deepEqual(await registry.liveGrants("bank"), [], "an extended grant grants nothing past its real end");
    offsetMs = 0;
    assert.deepEqual(await registry.liveGrants("bank"), [], "nor before it");

    const third = await registry.allow("bank", { risk: "consequential", secrets: [], via: "console" });
    assert.deepEqual(await registry.revoke("bank"), [short.id, third.id]);
    assert.deepEqual(await registry.liveGrants("bank"), [], "a revoked grant is not live");
    await exec(location, `UPDATE site_grants SET revoked_ms = NULL WHERE grant_id = '${third.id}'`);
    assert.deepEqual(await registry.liveGrants("bank"), [], "an un-revoked grant grants nothing");

    // A redefined site's grants end.
    const fourth = await registry.allow("library", { risk: "reversible_write", secrets: [], via: "cli" });
    assert.equal((await registry.liveGrants("library")).length, 1);
    await registry.define({ name: "library", origins: ["https://library.example.com", "https://evil.example"] });
    assert.deepEqual(await registry.liveGrants("library"), [], `${fourth.id} was given under the old definition`);

    const checker = openOperationStore(location, { sealer });
    try {
      const failing = (await checker.findUnauthenticRows())
        .filter((row) => row.table === "site_grants")
        .map((row) => row.id)
        .sort();
      // The extended one was revoked since: revoking seals what it ends, which then grants nothing anyway.
      assert.deepEqual(failing, [`grant ${grant.id} on site library`, `grant ${third.id} on site bank`].sort());
      const changes = (await checker.readJournalEvents(0, 100))
        .filter((e) => e.type === "site_changed")
        .map((e) => (JSON.parse(e.body ?? "{}") as { change: string }).change);
      assert.deepEqual(
        changes.filter((c) => c === "granted" || c === "grants_revoked"),
        ["granted", "granted", "granted", "grants_revoked", "granted"],
      );
      assert.ok((await verifyJournal(checker, sealer)).ok);
    } finally {
      await checker.close();
    }
  } finally {
    await store.close();
  }
}

describe("standing grants on both stores", () => {
  test("siteGrants (SQLite): given, listed, expired and revoked; a widened, extended or un-revoked row grants nothing and journal verify names it", () =>
    grantsOn({ backend: "sqlite", path: sqliteStorePath(makeTempHome()), busyTimeoutMs: 1000 }, sqliteExec));
  const postgres = database.skip === undefined ? {} : { skip: database.skip };
  test(
    "siteGrants (PostgreSQL): given, listed, expired and revoked; a widened, extended or un-revoked row grants nothing and journal verify names it",
    postgres,
    () => grantsOn(freshPostgresLocation(database.url ?? "", created), postgresExec),
  );
});
