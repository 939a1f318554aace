import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createExecutor } from "../../src/executor/createExecutor.js";
import { createLocalProvider } from "../../src/providers/local/localProvider.js";
import { startWidgetSite } from "../fixtures/errandWidgets.js";
import type { FixtureServer } from "../fixtures/fixtureSite.js";
import { makeContext, makeTask } from "./attemptSupport.js";
import { loopbackGuard } from "./loopbackGuard.js";
import { memoryVault } from "./memoryVault.js";

let site: FixtureServer;
const provider = createLocalProvider({ env: process.env });
let execute: ReturnType<typeof createExecutor>;

before(async () => {
  site = await startWidgetSite();
  execute = createExecutor({
    provider,
    guard: loopbackGuard([site.origin]),
    secrets: memoryVault(),
    defaultTaskTimeoutMs: 15_000,
    defaultStepTimeoutMs: 3_000,
  });
});
after(async () => {
  await provider.shutdown();
  await site.close();
});

describe("check and uncheck on checkboxes and radios, in local Chromium", () => {
  test("a write ticks, unticks, picks a radio and chooses in a labelled select by its visible label; repeating a step changes nothing; the site receives what the form shows", async () => {
    const saves = site.count("/preferences/save", "POST");
    const { receipt } = await execute(
      makeTask({
        target: { url: `${site.origin}/preferences` },
        risk: "reversible_write",
        approved: true,
        steps: [
          { action: "check", selector: "#terms" },
          { action: "check", selector: "#terms" },
          { action: "uncheck", selector: "#newsletter" },
          { action: "uncheck", selector: "#newsletter" },
          { action: "check", selector: "#plan-pro" },
          { action: "select", selector: "#country", value: "Norway" },
          { action: "click", selector: "#save" },
          { action: "expect_text", text: "terms=yes newsletter=- plan=pro country=no", selector: "#result", match: "exact" },
        ],
      }),
      makeContext(),
    );
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
    assert.equal(receipt.mutationBoundary, "crossed");
    assert.equal(site.count("/preferences/save", "POST"), saves + 1);
  });

  test("the state is read back: a page that unticks the box again fails the step", async () => {
    const { receipt } = await execute(
      makeTask({
        target: { url: `${site.origin}/preferences` },
        steps: [
          { action: "check", selector: "#stubborn" },
          { action: "expect_text", text: "Stubborn" },
        ],
      }),
      makeContext(),
    );
    assert.equal(receipt.status, "FAIL");
    assert.equal(receipt.error?.step, 0);
    assert.equal(receipt.error?.code, "step_failed", JSON.stringify(receipt.error));
  });

  test("unchecking a radio, or checking what is no checkbox, fails the step and names it", async () => {
    for (const step of [
      { action: "uncheck", selector: "#plan-basic" },
      { action: "check", selector: "#nickname" },
    ]) {
      const { receipt } = await execute(
        makeTask({ target: { url: `${site.origin}/preferences` }, steps: [step, { action: "expect_text", text: "Basic" }] }),
        makeContext(),
      );
      assert.equal(receipt.status, "FAIL", step.selector);
      assert.equal(receipt.error?.step, 0);
      assert.equal(receipt.error?.code, "step_failed", JSON.stringify(receipt.error));
    }
  });

  test("a write's check crosses the mutation boundary before it acts", async () => {
    const order: string[] = [];
    const { receipt } = await execute(
      makeTask({
        target: { url: `${site.origin}/preferences` },
        risk: "reversible_write",
        approved: true,
        steps: [
          { action: "check", selector: "#autosave" },
          { action: "expect_text", text: "Autosave" },
        ],
      }),
      makeContext({ beforeMutationBoundary: () => (order.push(`boundary after ${site.count("/preferences/autosave", "POST")} autosaves`), Promise.resolve()) }),
    );
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
    assert.deepEqual(order, ["boundary after 0 autosaves"]);
  });

  test("in a read_only task a box whose change handler POSTs sends nothing to the site", async () => {
    // The write test before this one ends right after its box is ticked, so its own autosave may
    // still be on its way to the site: count from when the site has been quiet for a second.
    const autosaves = await settledCount("/preferences/autosave");
    const { receipt } = await execute(
      makeTask({
        target: { url: `${site.origin}/preferences` },
        steps: [
          { action: "check", selector: "#autosave" },
          { action: "uncheck", selector: "#autosave" },
          { action: "expect_text", text: "Autosave" },
        ],
      }),
      makeContext(),
    );
    assert.equal(site.count("/preferences/autosave"), autosaves, "no autosave reached the site");
    assert.ok(receipt.network.nonGetAborted >= 1, JSON.stringify(receipt.network));
  });
});

/** The site's count for `path` once it has not changed for a second (at most 10 s of waiting). */
async function settledCount(path: string): Promise<number> {
  let last = site.count(path);
  let stableSince = Date.now();
  const giveUp = Date.now() + 10_000;
  while (Date.now() - stableSince < 1_000 && Date.now() < giveUp) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = site.count(path);
    if (now !== last) {
      last = now;
      stableSince = Date.now();
    }
  }
  return last;
}
