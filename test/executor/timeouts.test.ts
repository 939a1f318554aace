// Timeouts that tell the truth, on local Chromium: a step whose element never appears is a timeout
// with the page's outline; a task whose budget ends while a step is still within its own time is
// task_timeout, naming the step, the phase and the time it waited; a write whose element never
// appears fails before its boundary (nothing sent), never UNCERTAIN.
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

before(async () => {
  sites = await startFixtureSites();
  execute = createExecutor({
    provider,
    guard: loopbackGuard([sites.site.origin]),
    secrets: memoryVault({}),
    defaultTaskTimeoutMs: 60_000,
    defaultStepTimeoutMs: 5_000,
  });
});
after(async () => {
  await provider.shutdown();
  await sites.close();
});

describe("timeouts that tell the truth", () => {
  test("an element that never appears within the step's own time is timeout, with the page's outline", async () => {
    const { receipt } = await execute(
      makeTask({
        target: { url: `${sites.site.origin}/form` },
        steps: [
          { action: "wait_for", selector: "#never", timeoutMs: 500 },
          { action: "expect_text", text: "x" },
        ],
      }),
      makeContext(),
    );
    assert.equal(receipt.status, "FAIL");
    assert.equal(receipt.error?.code, "timeout", JSON.stringify(receipt.error));
    assert.equal(receipt.error?.step, 0);
    assert.equal(receipt.error?.timing, undefined);
    assert.ok(receipt.failure !== undefined, "the failure outline is there for the assistant to correct its selector");
  });

  test("the task's budget ending while a step waits (its own time not spent) is task_timeout, naming the step, the phase and the wait", async () => {
    const { receipt } = await execute(
      makeTask({
        target: { url: `${sites.site.origin}/form` },
        timeouts: { taskMs: 12_000 },
        steps: [
          { action: "wait_for", selector: "#never", timeoutMs: 120_000 },
          { action: "expect_text", text: "x" },
        ],
      }),
      makeContext(),
    );
    assert.equal(receipt.status, "FAIL");
    assert.equal(receipt.error?.code, "task_timeout", JSON.stringify(receipt.error));
    assert.equal(receipt.error?.step, 0);
    assert.equal(receipt.error?.timing?.phase, "waiting");
    assert.ok((receipt.error?.timing?.waitedMs ?? 0) > 0);
    assert.match(
      receipt.error?.message ?? "",
      /ran out during step 1 \(\/steps\/0\) \(wait_for\) while waiting for its element to appear, after \d+ ms waiting for the browser \(the step began \d+ ms into the task\)/,
    );
  });

  test("a goto the budget cuts short is task_timeout in the navigation phase", async () => {
    const { receipt } = await execute(
      makeTask({
        target: { url: `${sites.site.origin}/` },
        timeouts: { taskMs: 12_000 },
        steps: [
          { action: "goto", url: `${sites.site.origin}/slow`, timeoutMs: 120_000 },
          { action: "expect_text", text: "x" },
        ],
      }),
      makeContext(),
    );
    assert.equal(receipt.error?.code, "task_timeout", JSON.stringify(receipt.error));
    assert.equal(receipt.error?.timing?.phase, "navigation");
  });

  test("a write whose element never appears fails before its boundary: nothing sent, never UNCERTAIN", async () => {
    let crossings = 0;
    const saves = sites.site.count("/save", "POST");
    for (const step of [
      { action: "click", selector: "#never" },
      { action: "fill", selector: "#never", value: "Ada" },
      { action: "press", key: "Enter", selector: "#never" },
      { action: "check", selector: "#never" },
    ]) {
      const { receipt } = await execute(
        makeTask({
          target: { url: `${sites.site.origin}/form` },
          risk: "reversible_write",
          approved: true,
          steps: [
            { ...step, timeoutMs: 500 },
            { action: "expect_text", text: "Saved" },
          ],
        }),
        makeContext({
          beforeMutationBoundary: () => {
            crossings += 1;
            return Promise.resolve();
          },
        }),
      );
      assert.equal(receipt.error?.code, "timeout", JSON.stringify(receipt.error));
      assert.equal(receipt.mutationBoundary, "not_crossed", step.action);
      assert.notEqual(receipt.status, "UNCERTAIN", step.action);
      assert.equal(receipt.status, "BLOCKED", `${step.action}: a write that did not finish and provably sent nothing`);
    }
    assert.equal(crossings, 0, "the boundary was never crossed");
    assert.equal(sites.site.count("/save", "POST"), saves, "nothing reached the site");
  });
});
