// The SecretStore and SiteStore on libSQL (@libsql/client, file:): secrets and sites created,
// replaced and deleted with their journal events; a site's redefinition moves its definition time and
// drops its session; sessions and grants fit only the definition they were made for; rows edited
// without the key are reported inauthentic; the journal verifies throughout.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "node:test";
import { createJournalSealer } from "../../../src/journal/createJournalSealer.js";
import { verifyJournal } from "../../../src/journal/verifyJournal.js";
import { statement } from "../../../src/store/libsql/LibsqlClientLike.js";
import { openLibsqlClient } from "../../../src/store/libsql/openLibsqlClient.js";
import { openLibsqlTestClient } from "../../fixtures/libsqlTestClient.js";
import { openLibsqlSecretStore } from "../../../src/store/libsql/openLibsqlSecretStore.js";
import { openLibsqlSiteStore } from "../../../src/store/libsql/openLibsqlSiteStore.js";
import { openLibsqlStore } from "../../../src/store/libsql/openLibsqlStore.js";
import type { SecretStore } from "../../../src/store/SecretStore.js";
import type { SiteStore } from "../../../src/store/SiteStore.js";
import type { Store } from "../../../src/store/Store.js";

const T0 = Date.UTC(2026, 0, 1);

async function withStores(
  body: (s: { store: Store; secrets: SecretStore; sites: SiteStore; sql: (text: string) => Promise<void>; clock: { now: number } }) => Promise<void>,
): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), "errand-libsql-sites-"));
  const url = pathToFileURL(join(home, "errand.db")).href;
  const sealer = createJournalSealer(randomBytes(32));
  const clock = { now: T0 };
  const options = { where: url, sealer, clock: () => clock.now };
  // The secret store opens first on a new database: it creates the schema and the journal head itself.
  const secrets = await openLibsqlSecretStore({ client: await openLibsqlTestClient({ url }), ...options });
  const store = await openLibsqlStore({ client: await openLibsqlTestClient({ url }), ...options });
  const sites = await openLibsqlSiteStore({ client: await openLibsqlTestClient({ url }), ...options });
  const raw = await openLibsqlClient({ url });
  try {
    await body({ store, secrets, sites, sql: async (text) => void (await raw.execute(statement(text))), clock });
    const verdict = await verifyJournal(store, sealer);
    assert.ok(verdict.ok, JSON.stringify(verdict));
  } finally {
    raw.close?.();
    await Promise.all([secrets.close(), sites.close(), store.close()]);
    rmSync(home, { recursive: true, force: true });
  }
}

test("libsql secret store: created, replaced (keeping its creation time) and deleted, each journaled without the value; a widened secret is inauthentic", () =>
  withStores(async ({ store, secrets, sql, clock }) => {
    const first = await secrets.putSecret({ name: "shop", sites: ["shop"], sourceKind: "stored", sealed: "sealed-1" });
    assert.deepEqual([first.created, first.record.authentic, first.record.createdMs], [true, true, T0]);
    clock.now += 1000;
    const second = await secrets.putSecret({ name: "shop", sites: ["shop", "bank"], sourceKind: "env", sealed: "sealed-2" });
    assert.deepEqual([second.created, second.record.createdMs, second.record.updatedMs], [false, T0, T0 + 1000]);
    assert.deepEqual(await secrets.readSecret("shop"), second.record);
    await secrets.putSecret({ name: "other", sites: ["x"], sourceKind: "file", sealed: "sealed-3" });
    assert.deepEqual(
      (await secrets.listSecrets()).map((s) => s.name),
      ["other", "shop"],
    );
    await sql(`UPDATE secrets SET sites_json = '["x","everywhere"]' WHERE name = 'other'`);
    assert.equal((await secrets.readSecret("other"))?.authentic, false, "bound sites widened without the key");
    assert.deepEqual(
      (await store.findUnauthenticRows()).map((r) => `${r.table} ${r.id}`),
      ["secrets other"],
    );
    await sql("DELETE FROM secrets WHERE name = 'other'");
    assert.equal(await secrets.deleteSecret("shop"), true);
    assert.equal(await secrets.deleteSecret("shop"), false);
    const changes = (await store.readJournalEvents(0, 100))
      .filter((e) => e.type === "secret_changed")
      .map((e) => (JSON.parse(e.body ?? "{}") as { change: string }).change);
    assert.deepEqual(changes, ["created", "updated", "created", "deleted"]);
    assert.ok(
      (await store.readJournalEvents(0, 100)).every((e) => !(e.body ?? "").includes("sealed-")),
      "no value is journaled",
    );
  }));

test("libsql site store: a redefinition moves the definition time and drops the session; sessions and grants fit only their definition; revoking ends every grant", () =>
  withStores(async ({ sites, sql, clock }) => {
    const definition = { name: "shop", origins: ["https://shop.example"], loginUrl: null, loggedInSelector: null, loginHosts: [] };
    const created = await sites.putSite(definition);
    assert.deepEqual([created.created, created.record.definedMs, created.record.authentic], [true, T0, true]);
    assert.equal(await sites.saveSession("shop", T0, { sealed: "session-1", state: "saved" }), true);
    assert.equal((await sites.readSite("shop"))?.authentic, true, "a saved session leaves the row's MAC intact");
    const replaced = await sites.putSite({ ...definition, origins: ["https://shop.example", "https://pay.example"] });
    assert.deepEqual([replaced.created, replaced.record.definedMs, replaced.record.sessionState, replaced.record.createdMs], [false, T0 + 1, "none", T0]);
    assert.deepEqual(await sites.readSite("shop"), replaced.record);
    assert.equal(await sites.saveSession("shop", T0, { sealed: "stale", state: "saved" }), false, "a session sealed for the old definition does not fit");

    const grant = { site: "shop", risk: "reversible_write" as const, secrets: ["shop"], durationMs: 60_000, via: "cli" as const };
    assert.equal(await sites.grantSite({ ...grant, grantId: "g-old", siteDefinedMs: T0 }), null, "a grant for the old definition is refused");
    const given = await sites.grantSite({ ...grant, grantId: "g1", siteDefinedMs: T0 + 1 });
    assert.deepEqual([given?.grantId, given?.expiresMs, given?.authentic], ["g1", clock.now + 60_000, true]);
    await sites.grantSite({ ...grant, grantId: "g2", siteDefinedMs: T0 + 1 });
    await sql("UPDATE site_grants SET risk = 'consequential' WHERE grant_id = 'g2'");
    assert.deepEqual(
      (await sites.listGrants("shop")).map((g) => [g.grantId, g.authentic]),
      [
        ["g1", true],
        ["g2", false],
      ],
    );
    clock.now += 10;
    assert.deepEqual(await sites.revokeGrants("shop"), ["g1", "g2"]);
    assert.ok((await sites.listGrants(null)).every((g) => g.revokedMs === clock.now));
    assert.deepEqual(await sites.revokeGrants("shop"), []);

    await sql("UPDATE sites SET origins_json = '[\"https://evil.example\"]' WHERE name = 'shop'");
    assert.equal((await sites.readSite("shop"))?.authentic, false);
    assert.equal(await sites.grantSite({ ...grant, grantId: "g3", siteDefinedMs: T0 + 1 }), null, "no grant on an edited site");
    await sql("UPDATE sites SET origins_json = '[\"https://shop.example\",\"https://pay.example\"]' WHERE name = 'shop'");
    await sql("DELETE FROM site_grants WHERE grant_id = 'g2'");
    assert.equal(await sites.deleteSite("shop"), true);
    assert.deepEqual(await sites.listSites(), []);
  }));
