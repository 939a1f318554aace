// Standing grants from the attacker's side: under the default every write waits for the owner and
// the site receives nothing; the owner's grant on a site lets a write on that site run with no owner
// action, and the operation names the grant; nothing else rides on it: another site, a host off the
// site (allowedHosts or a goto), a secret it does not name, a higher risk, an expired, revoked or
// edited grant, a task that names no site.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { openSqliteDatabase } from "../../src/store/sqlite/sqliteBinding.js";
import { decideOwnerApproval } from "../../src/operations/needsOwnerApproval.js";
import type { SiteRegistry } from "../../src/sites/createSiteRegistry.js";
import type { LiveSiteGrant } from "../../src/sites/siteTypes.js";
import { validateTask } from "../../src/task/validateTask.js";
import { startCountingServer } from "./support/countingServer.js";
import type { CountingServer } from "./support/countingServer.js";
import { createFakeExecutor } from "./support/fakeExecutor.js";
import { openHarness } from "./support/harness.js";
import { defineLoggedInSite } from "./support/loggedInSite.js";
import type { Harness } from "./support/harness.js";
import { writeTask } from "./support/tasks.js";

const LIBRARY = "https://library.example.com";

let counting: CountingServer;
before(async () => {
  counting = await startCountingServer();
});
after(() => counting.close());

const renewal = (extra: Record<string, unknown> = {}): Record<string, unknown> =>
  writeTask(randomUUID(), undefined, { site: "library", target: { url: `${LIBRARY}/loans` }, ...extra });

describe("standing grants decide which writes run unattended", () => {
  let h: Harness;
  let registry: SiteRegistry;
  let fake: ReturnType<typeof createFakeExecutor>;
  before(async () => {
    fake = createFakeExecutor({ fixtureOrigin: counting.origin });
    h = await openHarness({ execute: fake.execute });
    // The registry admission reads, as errand serve's owner console writes it: both sites logged in,
    // so what decides below is the grant alone.
    registry = h.errand.siteRegistry();
    await defineLoggedInSite(registry, "library", LIBRARY);
    await defineLoggedInSite(registry, "bank", "https://bank.example.com");
  });
  after(async () => {
    await h.close();
  });

  /** Submits, runs the queue, and says whether the write reached the counting site. */
  const attempt = async (task: Record<string, unknown>): Promise<{ status: string; posts: number; id: string }> => {
    const id = String(task["operationId"]);
    const submitted = await h.service.submit(task);
    assert.ok(submitted.ok, JSON.stringify(submitted));
    await h.service.runQueue();
    return { status: submitted.status, posts: counting.count("POST", `/write/${id}`), id };
  };

  test("standingGrant: a reversible_write on a site waits for the owner (0 POSTs); with the owner's grant it runs (PASS, 0 owner actions) and inspect names the grant; revoked, it waits again", async () => {
    assert.deepEqual(await attempt(renewal()).then((r) => [r.status, r.posts]), ["awaiting_approval", 0]);
    const grant = await registry.allow("library", { risk: "reversible_write", secrets: [], via: "cli" });
    const granted = await attempt(renewal());
    assert.deepEqual([granted.status, granted.posts], ["pending", 1]);
    const collected = await h.service.collect(granted.id);
    assert.ok(collected.ok);
    assert.equal(collected.receipt?.status, "PASS");
    const inspected = await h.service.inspect(granted.id);
    assert.ok(inspected.ok && "operation" in inspected);
    assert.equal(inspected.operation.ranUnderGrant, grant.id);
    // Never approved by anyone: the journal holds no operation_approved for it.
    assert.equal((await h.store.readOperationEvents(granted.id)).filter((e) => e.type === "operation_approved").length, 0);

    // Nothing else rides on it.
    const bank = await attempt(renewal({ site: "bank", target: { url: "https://bank.example.com/transfer" } }));
    assert.deepEqual([bank.status, bank.posts], ["awaiting_approval", 0], "a grant for library does not cover bank");
    const offSiteHost = await attempt(renewal({ allowedHosts: ["evil.example"] }));
    assert.deepEqual([offSiteHost.status, offSiteHost.posts], ["awaiting_approval", 0], "an allowedHost off the site");
    const offSiteGoto = await attempt(
      renewal({
        allowedHosts: ["evil.example"],
        steps: [
          { action: "goto", url: "https://evil.example/steal" },
          { action: "click", selector: "#save" },
        ],
      }),
    );
    assert.deepEqual([offSiteGoto.status, offSiteGoto.posts], ["awaiting_approval", 0], "a goto off the site");
    const bigger = await attempt(renewal({ risk: "consequential" }));
    assert.deepEqual([bigger.status, bigger.posts], ["awaiting_approval", 0], "consequential under a reversible_write grant");
    const siteless = { ...renewal() };
    delete siteless["site"];
    const noSite = await attempt(siteless);
    assert.deepEqual([noSite.status, noSite.posts], ["awaiting_approval", 0], "a task that names no site");

    // An edited row (risk widened to consequential) grants nothing at all.
    const db = openSqliteDatabase(h.dbPath);
    try {
      db.prepare("UPDATE site_grants SET risk = 'consequential' WHERE grant_id = ?").run(grant.id);
    } finally {
      db.close();
    }
    const edited = await attempt(renewal({ risk: "consequential" }));
    assert.deepEqual([edited.status, edited.posts], ["awaiting_approval", 0], "a widened grant row");
    const alsoEdited = await attempt(renewal());
    assert.deepEqual([alsoEdited.status, alsoEdited.posts], ["awaiting_approval", 0], "a widened row covers not even what it had");

    await registry.allow("library", { risk: "reversible_write", secrets: [], via: "cli" });
    assert.equal((await attempt(renewal())).posts, 1);
    await registry.revoke("library");
    const revoked = await attempt(renewal());
    assert.deepEqual([revoked.status, revoked.posts], ["awaiting_approval", 0], "a revoked grant");
  });
});

describe("the grant decision itself", () => {
  const task = (extra: Record<string, unknown>) => {
    const v = validateTask({ ...writeTask(randomUUID(), undefined, { site: "library", target: { url: `${LIBRARY}/loans` } }), ...extra });
    assert.ok(v.ok, JSON.stringify(v));
    return v.value;
  };
  const grant: LiveSiteGrant = {
    grantId: "grant_1",
    site: "library",
    origins: [LIBRARY, "https://*.library.example.com"],
    risk: "reversible_write",
    secrets: ["LIB_PIN"],
    expiresMs: 1_000,
  };
  const rules = ["reversible_write", "consequential", "secret"] as const;
  const decide = (extra: Record<string, unknown>, now = 500) => decideOwnerApproval(task(extra), rules, [grant], now);

  test("standingGrant decision: covers a task on the site within its risk and secrets; not a secret it does not name, a wider risk, a host off the site, another site, or after expiry", () => {
    assert.deepEqual(decide({}), { needed: false, grantId: "grant_1" });
    assert.deepEqual(
      decide({ risk: "read_only", approved: false, steps: [{ action: "expect_text", text: "x" }] }),
      { needed: false, grantId: null },
      "read_only needs no grant",
    );
    const typing = (secret: string) => ({
      secretApproval: true,
      steps: [
        { action: "fill_secret", selector: "#pin", secret },
        { action: "click", selector: "#save" },
      ],
    });
    assert.deepEqual(decide(typing("LIB_PIN")), { needed: false, grantId: "grant_1" });
    assert.deepEqual(decide(typing("BANK_PIN")), { needed: true }, "a secret the grant does not name");
    assert.deepEqual(decide({ risk: "consequential" }), { needed: true });
    assert.deepEqual(decide({ allowedHosts: ["cdn.library.example.com"] }), { needed: false, grantId: "grant_1" }, "a host under the site's wildcard");
    assert.deepEqual(decide({ allowedHosts: ["*.library.example.com"] }), { needed: false, grantId: "grant_1" });
    assert.deepEqual(decide({ allowedHosts: ["*.example.com"] }), { needed: true }, "a wildcard wider than the site");
    assert.deepEqual(decide({ allowedHosts: ["library.example.com.evil.example"] }), { needed: true });
    assert.deepEqual(decide({ target: { url: "http://library.example.com/loans" } }), { needed: true }, "another origin on the site's host");
    assert.deepEqual(decide({ site: "bank" }), { needed: true });
    assert.deepEqual(decide({}, 1_000), { needed: true }, "expired");
  });
});
