// The owner's site registry on both stores (a real SQLite file and a real PostgreSQL schema):
// definitions checked and journaled, sessions sealed to the site's name, origins and definition,
// restricted to the site's origins on saving and on opening, and never in clear in any row.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, describe, test } from "node:test";
import { openSiteStoreAt } from "../../src/app/openStores.js";
import type { StoreLocation } from "../../src/app/storeLocation.js";
import { createJournalSealer } from "../../src/journal/createJournalSealer.js";
import { verifyJournal } from "../../src/journal/verifyJournal.js";
import { deriveSubkey } from "../../src/keys/loadKey.js";
import { createSealedBox } from "../../src/keys/sealedBox.js";
import { createSiteRegistry } from "../../src/sites/createSiteRegistry.js";
import { SiteError } from "../../src/sites/siteTypes.js";
import type { SavedSession } from "../../src/sites/siteTypes.js";
import { openOperationStore } from "../../src/app/openStores.js";
import { sqliteStorePath } from "../../src/store/sqlite/sqliteStorePath.js";
import { carriesCanary } from "../secrets/support/secretSites.js";
import { dropSchemas, freshPostgresLocation, testDatabase, withSchemaClient } from "../fixtures/testPostgres.js";
import { makeTempHome } from "../operations/support/harness.js";
import { openSqliteDatabase } from "../../src/store/sqlite/sqliteBinding.js";

const COOKIE_CANARY = "Cookie-Canary-Sess-4411";
const STORAGE_CANARY = "Storage-Canary-Tok-9027";
const TRACKER_CANARY = "Tracker-Canary-Xx-5150";

const database = await testDatabase();
const created: string[] = [];
after(async () => {
  if (database.url !== undefined) await dropSchemas(database.url, created);
});

const session = (): SavedSession => ({
  cookies: [
    { name: "sid", value: COOKIE_CANARY, domain: "library.example.com", path: "/", expires: -1, httpOnly: true, secure: true, sameSite: "Lax" },
    { name: "wide", value: "wide-cookie-value", domain: ".example.com", path: "/", expires: -1, httpOnly: false, secure: false, sameSite: "Lax" },
    { name: "t", value: TRACKER_CANARY, domain: "tracker.example.net", path: "/", expires: -1, httpOnly: false, secure: false, sameSite: "None" },
  ],
  origins: [
    { origin: "https://library.example.com", localStorage: [{ name: "token", value: STORAGE_CANARY }] },
    { origin: "https://tracker.example.net", localStorage: [{ name: "id", value: TRACKER_CANARY }] },
  ],
});

interface Backend {
  name: string;
  location: () => StoreLocation;
  rows: (location: StoreLocation) => Promise<string>;
  exec: (location: StoreLocation, sql: string) => Promise<void>;
}

const backends: Backend[] = [
  {
    name: "SQLite",
    location: () => ({ backend: "sqlite", path: sqliteStorePath(makeTempHome()), busyTimeoutMs: 1000 }),
    rows: (location) => {
      const db = openSqliteDatabase((location as { path: string }).path, { readonly: true });
      try {
        return Promise.resolve(JSON.stringify([db.prepare("SELECT * FROM sites").all(), db.prepare("SELECT * FROM journal_events").all()]));
      } finally {
        db.close();
      }
    },
    exec: (location, sql) => {
      const db = openSqliteDatabase((location as { path: string }).path);
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
    location: () => freshPostgresLocation(database.url ?? "", created),
    rows: async (location) => {
      const pg = location as { url: string; schema?: string };
      return withSchemaClient(pg.url, pg.schema, async (client) =>
        JSON.stringify([(await client.query("SELECT * FROM sites")).rows, (await client.query("SELECT * FROM journal_events")).rows]),
      );
    },
    exec: async (location, sql) => {
      const pg = location as { url: string; schema?: string };
      await withSchemaClient(pg.url, pg.schema, (client) => client.query(sql));
    },
  },
];

/** Saves and opens a session, reads every row, redefines, tampers and removes, on one backend. */
async function sealedSessions(backend: Backend): Promise<void> {
  {
    {
      const key = randomBytes(32);
      const sealer = createJournalSealer(deriveSubkey(key, "journal"));
      const location = backend.location();
      const store = openSiteStoreAt(location, { sealer });
      const registry = createSiteRegistry({ store, box: createSealedBox(deriveSubkey(key, "sites")), publicUrl: "https://errand.example/" });
      try {
        const defined = await registry.define({
          name: "library",
          origins: ["https://Library.example.com/", "https://*.example.com", "https://example.com"],
          loginUrl: "https://library.example.com/login",
          loggedInSelector: "#sign-out",
        });
        assert.equal(defined.created, true);
        assert.deepEqual(defined.site.origins, ["https://*.example.com", "https://example.com", "https://library.example.com"]);
        assert.equal(defined.site.loggedIn, false);
        const site = await registry.lookup("library");
        assert.ok(site !== null);
        assert.equal(await registry.openSession(site), null);
        await registry.saveSession(site, session(), "saved");
        const opened = await registry.openSession(site);
        assert.deepEqual(opened?.cookies.map((c) => c.name).sort(), ["sid", "wide"], "the tracker's cookie is not kept");
        assert.deepEqual(
          opened?.origins.map((o) => o.origin),
          ["https://library.example.com"],
        );
        assert.equal((await registry.show("library"))?.loggedIn, true);
        assert.equal(registry.loginPageUrl("library"), "https://errand.example/owner/sites/library/login");
        const rows = await backend.rows(location);
        for (const canary of [COOKIE_CANARY, STORAGE_CANARY, TRACKER_CANARY]) assert.ok(!carriesCanary(rows, canary), `a row carries ${canary}`);
        assert.ok(!carriesCanary(JSON.stringify(await registry.list()), COOKIE_CANARY));

        await registry.saveSession(site, null, "expired");
        assert.deepEqual([(await registry.show("library"))?.session, (await registry.show("library"))?.loggedIn], ["expired", false]);
        await registry.saveSession(site, session(), "saved");
        const redefined = await registry.define({ name: "library", origins: ["https://library.example.com"] });
        assert.equal(redefined.created, false);
        assert.equal(redefined.site.session, "none", "a redefined site starts without a session");
        // A save for the old definition does not land on the new one.
        await registry.saveSession(site, session(), "saved");
        const now = await registry.lookup("library");
        assert.ok(now !== null);
        assert.equal(await registry.openSession(now), null);
        // A definition widened in the database (without the key) grants nothing: the session does not open, tasks are refused.
        await registry.saveSession(now, session(), "saved");
        await backend.exec(location, `UPDATE sites SET origins_json = '["https://evil.example","https://library.example.com"]' WHERE name = 'library'`);
        await assert.rejects(registry.lookup("library"), (error: unknown) => error instanceof SiteError && error.code === "journal_tampered");
        assert.equal(await registry.openSession({ ...now, origins: ["https://evil.example", "https://library.example.com"] }), null);
        assert.equal((await registry.show("library"))?.authentic, false);
        const checker = openOperationStore(location, { sealer });
        try {
          assert.deepEqual(await checker.findUnauthenticRows(), [{ table: "sites", id: "site library" }]);
        } finally {
          await checker.close();
        }
        assert.equal(await registry.remove("library"), true);
        assert.equal(await registry.remove("library"), false);
        const operations = openOperationStore(location, { sealer });
        try {
          const changes = (await operations.readJournalEvents(0, 50))
            .filter((e) => e.type === "site_changed")
            .map((e) => (JSON.parse(e.body ?? "{}") as { change: string }).change);
          assert.deepEqual(changes, ["created", "replaced", "deleted"]);
          assert.ok((await verifyJournal(operations, sealer)).ok);
        } finally {
          await operations.close();
        }
      } finally {
        await store.close();
      }
    }
  }
}

describe("site registry on both stores", () => {
  test("siteRegistry (SQLite): a saved session is sealed and restricted to the site's origins; no row holds a cookie or storage value; a redefinition drops it; a definition widened without the key grants nothing", () =>
    sealedSessions(backends[0]!));
  const postgres = database.skip === undefined ? {} : { skip: database.skip };
  test(
    "siteRegistry (PostgreSQL): a saved session is sealed and restricted to the site's origins; no row holds a cookie or storage value; a redefinition drops it; a definition widened without the key grants nothing",
    postgres,
    () => sealedSessions(backends[1]!),
  );
});

describe("site registry settings", () => {
  test("siteRegistry refuses a bad name, origin, login URL off the site, or an empty selector with invalid_site, naming the setting", async () => {
    const key = randomBytes(32);
    const store = openSiteStoreAt({ backend: "sqlite", path: sqliteStorePath(makeTempHome()), busyTimeoutMs: 1000 }, { sealer: createJournalSealer(key) });
    const registry = createSiteRegistry({ store, box: createSealedBox(deriveSubkey(key, "sites")), publicUrl: null });
    const refusal = async (input: Parameters<typeof registry.define>[0]): Promise<string> => {
      try {
        await registry.define(input);
        return "accepted";
      } catch (error) {
        assert.ok(error instanceof SiteError);
        return `${error.code}: ${error.message}`;
      }
    };
    try {
      assert.match(await refusal({ name: "1bad", origins: ["https://a.example"] }), /^invalid_site: .*site name/);
      assert.match(await refusal({ name: "lib", origins: ["https://a.example/path"] }), /^invalid_site: .*origin a site's session can be used on/);
      assert.match(await refusal({ name: "lib", origins: [] }), /^invalid_site: .*at least one origin/);
      assert.match(await refusal({ name: "lib", origins: ["https://a.example"], loginUrl: "https://sso.example/login" }), /^invalid_site: --login-url/);
      assert.equal(
        await refusal({ name: "lib", origins: ["https://a.example"], loginUrl: "https://sso.example/login", loginHosts: ["sso.example"] }),
        "accepted",
      );
      assert.match(await refusal({ name: "lib", origins: ["https://a.example"], loggedInSelector: " " }), /^invalid_site: --logged-in/);
      assert.equal(registry.loginPageUrl("lib"), "/owner/sites/lib/login");
    } finally {
      await store.close();
    }
  });
});
