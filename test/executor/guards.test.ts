import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createExecutor } from "../../src/executor/createExecutor.js";
import { createLocalProvider } from "../../src/providers/local/localProvider.js";
import { startFixtureSites } from "../fixtures/fixtureSite.js";
import { makeContext, makeTask } from "./attemptSupport.js";
import { memoryVault } from "./memoryVault.js";
import { loopbackGuard } from "./loopbackGuard.js";

let sites: Awaited<ReturnType<typeof startFixtureSites>>;
const provider = createLocalProvider({ env: process.env });
let execute: ReturnType<typeof createExecutor>;

const task = makeTask;
const context = makeContext;

before(async () => {
  sites = await startFixtureSites();
  execute = createExecutor({
    provider,
    guard: loopbackGuard([sites.site.origin]),
    secrets: memoryVault(),
    defaultTaskTimeoutMs: 15_000,
    defaultStepTimeoutMs: 3_000,
  });
});
after(async () => {
  await provider.shutdown();
  await sites.close();
});

describe("guards, tried from the attacker's side", () => {
  test("a redirect off the task's hosts is stopped before the other host receives anything", async () => {
    const { receipt } = await execute(
      task({ target: { url: `${sites.site.origin}/` }, steps: [{ action: "goto", url: `${sites.site.origin}/redirect-off` }] }),
      context(),
    );
    assert.equal(receipt.status, "FAIL");
    assert.equal(receipt.error?.step, 0);
    assert.ok(["navigation_blocked", "ip_blocked"].includes(receipt.error?.code ?? ""), receipt.error?.code);
    assert.ok(receipt.network.navigationsBlocked >= 1);
    assert.equal(sites.other.hits.length, 0);
  });

  test("a two-hop redirect chain that ends off-host is stopped before the last hop", async () => {
    const { receipt } = await execute(task({ target: { url: `${sites.site.origin}/redirect-hop` }, steps: [{ action: "expect_text", text: "x" }] }), context());
    assert.equal(receipt.status, "FAIL");
    assert.equal(receipt.error?.step, null, "the target load itself failed");
    assert.equal(sites.other.hits.length, 0);
  });

  test("an on-host redirect is followed", async () => {
    const { receipt } = await execute(
      task({ target: { url: `${sites.site.origin}/redirect-home` }, steps: [{ action: "expect_url", url: `${sites.site.origin}/` }] }),
      context(),
    );
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
  });

  test("meta refresh, JavaScript location and link clicks to another host are blocked", async () => {
    for (const path of ["/meta-refresh", "/js-location"]) {
      const { receipt } = await execute(
        task({ target: { url: `${sites.site.origin}${path}` }, steps: [{ action: "wait_for", selector: "#nothing", timeoutMs: 800 }] }),
        context(),
      );
      assert.equal(receipt.status, "FAIL", path);
      assert.ok(receipt.network.blockedRequests >= 1, path);
    }
    const click = await execute(
      task({
        target: { url: `${sites.site.origin}/` },
        steps: [
          { action: "click", selector: "#off" },
          { action: "wait_for", selector: "#nothing", timeoutMs: 500 },
        ],
      }),
      context(),
    );
    assert.equal(click.receipt.status, "FAIL");
    assert.ok(["navigation_blocked", "ip_blocked"].includes(click.receipt.error?.code ?? ""));
    assert.equal(sites.other.hits.length, 0);
  });

  test("goto to a host outside allowedHosts fails with navigation_blocked", async () => {
    const guardAll = createExecutor({
      provider,
      guard: loopbackGuard([sites.site.origin, sites.other.origin]),
      secrets: memoryVault(),
      defaultTaskTimeoutMs: 10_000,
      defaultStepTimeoutMs: 2_000,
    });
    const { receipt } = await guardAll(
      task({ target: { url: `${sites.site.origin}/` }, steps: [{ action: "goto", url: `${sites.other.origin}/x` }] }),
      context(),
    );
    assert.equal(receipt.error?.code, "navigation_blocked");
    assert.equal(sites.other.hits.length, 0);
  });

  test("subresources, iframes and fetches to a refused address are aborted", async () => {
    const { receipt } = await execute(
      task({ target: { url: `${sites.site.origin}/subresources` }, steps: [{ action: "expect_text", text: "subs" }] }),
      context(),
    );
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
    assert.ok(receipt.network.blockedRequests >= 2, `blocked ${receipt.network.blockedRequests}`);
    assert.equal(sites.other.hits.length, 0);
  });

  test("read_only aborts POSTs, beacons and form submissions: zero reach the site", async () => {
    const beforeTrack = sites.site.count("/track") + sites.site.count("/beacon");
    const load = await execute(task({ target: { url: `${sites.site.origin}/post-on-load` }, steps: [{ action: "expect_text", text: "loaded" }] }), context());
    assert.equal(load.receipt.status, "PASS");
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(sites.site.count("/track") + sites.site.count("/beacon"), beforeTrack);
    assert.ok(load.receipt.network.nonGetAborted >= 1);

    const savesBefore = sites.site.count("/save", "POST");
    const form = await execute(
      task({
        target: { url: `${sites.site.origin}/post-form` },
        steps: [
          { action: "click", selector: "#submit" },
          { action: "expect_text", text: "Saved", timeoutMs: 800 },
        ],
      }),
      context(),
    );
    assert.equal(form.receipt.status, "FAIL");
    assert.equal(sites.site.count("/save", "POST"), savesBefore, "the POST never reached the site");
    assert.ok(form.receipt.network.nonGetAborted >= 1);
  });

  test("a popup off the task's hosts is closed, one on them followed; dialogs dismissed, downloads refused", async () => {
    const { receipt } = await execute(
      task({
        target: { url: `${sites.site.origin}/popup` },
        // Eleven steps and two tabs: room for a loaded machine (nothing here is about time).
        timeouts: { taskMs: 60_000, stepMs: 8_000 },
        steps: [
          { action: "click", selector: "#open" },
          { action: "expect_url", url: `${sites.site.origin}/popped` },
          { action: "goto", url: `${sites.site.origin}/popup-off` },
          { action: "click", selector: "#open" },
          { action: "expect_url", url: `${sites.site.origin}/popup-off` },
          { action: "goto", url: `${sites.site.origin}/dialog` },
          { action: "click", selector: "#b" },
          { action: "expect_text", text: "after", selector: "#r" },
          { action: "goto", url: `${sites.site.origin}/download` },
          { action: "click", selector: "#dl" },
          { action: "expect_url", url: `${sites.site.origin}/download` },
        ],
      }),
      context(),
    );
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
    assert.equal(receipt.network.popupsClosed, 1);
    assert.equal(receipt.network.dialogsDismissed, 1);
    assert.equal(sites.other.hits.length, 0);
  });
});
