// Lists and dynamic pages on local Chromium: a single-page app whose list loads late, a modal, and
// a page with 100,000 list items (the attacker's side: what leaves the browser stays bounded).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createExecutor } from "../../src/executor/createExecutor.js";
import { createLocalProvider } from "../../src/providers/local/localProvider.js";
import { TASK_LIMITS } from "../../src/task/limits.js";
import { startDynamicSite, HUGE_LIST, LOANS } from "../fixtures/dynamicSite.js";
import type { FixtureServer } from "../fixtures/fixtureSite.js";
import { makeContext, makeTask } from "./attemptSupport.js";
import { memoryVault } from "./memoryVault.js";
import { loopbackGuard } from "./loopbackGuard.js";

let site: FixtureServer;
const provider = createLocalProvider({ env: process.env });
let execute: ReturnType<typeof createExecutor>;

before(async () => {
  site = await startDynamicSite();
  execute = createExecutor({
    provider,
    guard: loopbackGuard([site.origin]),
    secrets: memoryVault({}),
    defaultTaskTimeoutMs: 30_000,
    defaultStepTimeoutMs: 5_000,
  });
});
after(async () => {
  await provider.shutdown();
  await site.close();
});

describe("lists", () => {
  test("extract_text all reads every loan of a list that loads late, in order, and expect_count holds", async () => {
    const { receipt, ephemeral } = await execute(
      makeTask({
        target: { url: `${site.origin}/app` },
        evidenceRetention: "full",
        steps: [
          { action: "click", selector: "#nav-loans" },
          { action: "extract_text", selector: "li.loan", name: "loans", all: true },
          { action: "expect_count", selector: "li.loan", count: LOANS.length },
          { action: "expect_count", selector: "li.loan", count: 2, match: "at_least" },
        ],
      }),
      makeContext(),
    );
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
    const expected: Record<string, string> = { "loans.count": String(LOANS.length) };
    LOANS.forEach((loan, at) => (expected[`loans.${String(at + 1).padStart(3, "0")}`] = loan));
    assert.deepEqual(ephemeral.outputs, expected);
    for (const value of Object.values(receipt.outputs ?? {})) assert.equal(value.untrusted, true, "each text is marked untrusted");
    assert.deepEqual(
      receipt.checks.map((c) => [c.action, c.expected, c.match, c.passed]),
      [
        ["expect_count", "5", "exact", true],
        ["expect_count", "2", "at_least", true],
      ],
    );
  });

  test("max bounds the list; expect_count that does not hold fails with what it counted", async () => {
    const { receipt, ephemeral } = await execute(
      makeTask({
        target: { url: `${site.origin}/app/loans` },
        steps: [
          { action: "extract_text", selector: "li.loan", name: "loans", all: true, max: 2 },
          { action: "expect_count", selector: "li.loan", count: 6, timeoutMs: 500 },
        ],
      }),
      makeContext(),
    );
    assert.deepEqual(ephemeral.outputs, { "loans.001": LOANS[0], "loans.002": LOANS[1], "loans.count": "5" });
    assert.equal(receipt.status, "FAIL");
    assert.equal(receipt.error?.code, "expectation_failed");
    assert.equal(receipt.error?.step, 1);
    assert.deepEqual(receipt.checks[0]?.observed, { untrusted: true, text: "5" });
  });

  test("expect_count exact 0 holds once a modal is gone", async () => {
    const { receipt } = await execute(
      makeTask({
        target: { url: `${site.origin}/app` },
        steps: [{ action: "expect_count", selector: "#modal", count: 0 }],
      }),
      makeContext(),
    );
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
  });

  test("attacker side: a list extraction on a 100,000-element page returns only max texts, each cut inside the page", async () => {
    const { receipt, ephemeral } = await execute(
      makeTask({
        target: { url: `${site.origin}/huge` },
        timeouts: { taskMs: 180_000 },
        steps: [
          // Generous step times: the page builds its rows on a shared, loaded machine (no time is asserted).
          { action: "extract_text", selector: "li.row", name: "rows", all: true, max: TASK_LIMITS.listItems.max, timeoutMs: 60_000 },
          { action: "expect_count", selector: "li.row", count: HUGE_LIST.rows, timeoutMs: 60_000 },
        ],
      }),
      makeContext(),
    );
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
    const names = Object.keys(ephemeral.outputs);
    assert.equal(names.length, TASK_LIMITS.listItems.max + 1, "max texts and the count, not 100,000");
    assert.equal(ephemeral.outputs["rows.count"], String(HUGE_LIST.rows));
    assert.equal(ephemeral.outputs["rows.001"]?.length, TASK_LIMITS.listItemChars, "the 50,000-character row is cut to the item cap");
    assert.equal(ephemeral.outputs[`rows.${TASK_LIMITS.listItems.max}`], `row ${TASK_LIMITS.listItems.max - 1}`);
    const bytes = Buffer.byteLength(JSON.stringify(ephemeral.outputs));
    assert.ok(bytes <= TASK_LIMITS.listItems.max * (TASK_LIMITS.listItemChars + 32), `outputs are ${bytes} bytes`);
    // Time is recorded, not asserted (a shared, loaded machine): docs/BENCHMARKS.md "task language".
    console.log(
      `100,000-element list: extract_text all ${receipt.steps[0]?.durationMs} ms, expect_count ${receipt.steps[1]?.durationMs} ms, outputs ${bytes} bytes`,
    );
  });
});

describe("dynamic pages: wait_for states and addresses", () => {
  test("a client-side route: wait_for the URL, then for the loading note to leave the document", async () => {
    const loads = site.count("/app/loans");
    const { receipt } = await execute(
      makeTask({
        target: { url: `${site.origin}/app` },
        steps: [
          { action: "click", selector: "#nav-loans" },
          { action: "wait_for", url: `${site.origin}/app/loans` },
          { action: "wait_for", url: `${site.origin}/app/`, match: "prefix" },
          { action: "wait_for", selector: "#loading", state: "detached" },
          { action: "expect_count", selector: "li.loan", count: LOANS.length },
        ],
      }),
      makeContext(),
    );
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
    assert.equal(site.count("/app/loans"), loads, "the route changed without loading a document");
  });

  test("a modal: wait_for it to be visible, then hidden, then detached", async () => {
    const { receipt } = await execute(
      makeTask({
        target: { url: `${site.origin}/app` },
        steps: [
          { action: "wait_for", selector: "#modal", state: "detached" },
          { action: "click", selector: "#help" },
          { action: "wait_for", selector: "#modal" },
          { action: "wait_for", selector: "#modal", state: "attached" },
          { action: "click", selector: "#close" },
          { action: "wait_for", selector: "#modal", state: "hidden" },
          { action: "wait_for", selector: "#modal", state: "detached" },
          { action: "expect_count", selector: "#modal", count: 0 },
        ],
      }),
      makeContext(),
    );
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
  });

  test("a wait_for on an address that never comes times out, and says where the page was", async () => {
    const { receipt } = await execute(
      makeTask({
        target: { url: `${site.origin}/app` },
        steps: [
          { action: "wait_for", url: `${site.origin}/app/loans`, timeoutMs: 500 },
          { action: "expect_text", text: "x" },
        ],
      }),
      makeContext(),
    );
    assert.equal(receipt.status, "FAIL");
    assert.equal(receipt.error?.code, "timeout");
    assert.equal(receipt.error?.step, 0);
    assert.deepEqual(receipt.error?.detail, { untrusted: true, text: `${site.origin}/app` });
  });

  test("a wait_for on an address off the task's hosts is refused in the browser too (navigation_blocked)", async () => {
    const { receipt } = await execute(
      makeTask({
        target: { url: `${site.origin}/app` },
        steps: [
          { action: "wait_for", url: "http://127.0.0.2:9/", match: "prefix" },
          { action: "expect_text", text: "x" },
        ],
      }),
      makeContext(),
    );
    assert.equal(receipt.status, "FAIL");
    assert.equal(receipt.error?.code, "navigation_blocked");
    assert.equal(receipt.error?.step, 0);
  });
});
