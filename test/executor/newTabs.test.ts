import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createExecutor } from "../../src/executor/createExecutor.js";
import { createPolicyNetworkGuard } from "../../src/executor/policyNetworkGuard.js";
import { startSessionProxy } from "../../src/app/buildExecutor.js";
import { parseAllowPrivate } from "../../src/policy/parseAllowPrivate.js";
import { createStaticResolver } from "../../src/policy/staticResolver.js";
import { createLocalProvider } from "../../src/providers/local/localProvider.js";
import { startCountingListener } from "../fixtures/countingListeners.js";
import type { CountingListener } from "../fixtures/countingListeners.js";
import { startWidgetSite } from "../fixtures/errandWidgets.js";
import type { FixtureServer } from "../fixtures/fixtureSite.js";
import { makeContext, makeTask } from "./attemptSupport.js";
import { memoryVault } from "./memoryVault.js";

/**
 * New tabs in real Chromium, through the production wiring of the local provider (the real policy,
 * and the egress proxy for the task's scope): a "Print invoice" that opens the invoice in a new tab
 * on the task's host is followed; a tab to a private address (a counting TCP+UDP listener on
 * 127.0.0.2 with no operator allowance) is closed and receives nothing, failing the task only when
 * a step needed it. The site on 127.0.0.1 has an operator allowance.
 */
let site: FixtureServer;
let away: CountingListener;
let provider: ReturnType<typeof createLocalProvider>;
let execute: ReturnType<typeof createExecutor>;

before(async () => {
  away = await startCountingListener("127.0.0.2");
  site = await startWidgetSite({ privateOrigin: `http://127.0.0.2:${away.port}` });
  const allowances = parseAllowPrivate([site.origin.slice("http://".length)]);
  assert.ok(allowances.ok);
  const resolver = createStaticResolver({});
  const policy = { resolver, allowPrivate: allowances.value, guard: createPolicyNetworkGuard({ resolver, allowPrivate: allowances.value }) };
  provider = createLocalProvider({ env: process.env, proxyForSession: (scope) => startSessionProxy(policy, scope) });
  // Generous budgets: the machine these run on is shared; no assertion here is about time.
  execute = createExecutor({ provider, guard: policy.guard, secrets: memoryVault(), defaultTaskTimeoutMs: 40_000, defaultStepTimeoutMs: 8_000 });
});
after(async () => {
  await provider.shutdown();
  await site.close();
  await away.close();
});

const invoices = () => `${site.origin}/invoices`;
const printed = () => `${site.origin}/invoices/42/print`;

describe("a click that opens a new tab on a task host continues in it", () => {
  test("a target=_blank 'Print invoice' link is followed without being asked: later steps and expect_url run in the new tab", async () => {
    const { receipt } = await execute(
      makeTask({
        target: { url: invoices() },
        steps: [
          { action: "click", selector: "#print" },
          { action: "expect_url", url: printed() },
          { action: "expect_text", text: "Total 99.00 EUR", selector: "#total" },
        ],
      }),
      makeContext(),
    );
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
    assert.equal(receipt.network.popupsClosed, 0);
    assert.equal(receipt.finalUrl?.text ?? receipt.finalUrl, printed());
  });

  test("then: follow_new_tab waits for a tab a script opens late", async () => {
    for (const selector of ["#print-script", "#print-late"]) {
      const { receipt } = await execute(
        makeTask({
          target: { url: invoices() },
          steps: [
            { action: "click", selector, then: "follow_new_tab" },
            { action: "expect_text", text: "Invoice 42", selector: "#invoice" },
          ],
        }),
        makeContext(),
      );
      assert.equal(receipt.status, "PASS", `${selector}: ${JSON.stringify(receipt.error)}`);
    }
  });

  test("then: follow_new_tab on a click that opens nothing fails that step", async () => {
    const { receipt } = await execute(
      makeTask({
        target: { url: invoices() },
        steps: [
          { action: "click", selector: "#nothing", then: "follow_new_tab", timeoutMs: 3_000 },
          { action: "expect_text", text: "Invoice 42" },
        ],
      }),
      makeContext(),
    );
    assert.equal(receipt.status, "FAIL");
    assert.equal(receipt.error?.step, 0);
    assert.equal(receipt.error?.code, "step_failed", JSON.stringify(receipt.error));
  });

  test("two tabs at once are not followed without then: both are closed and the task stays on its page", async () => {
    const { receipt } = await execute(
      makeTask({
        target: { url: invoices() },
        steps: [
          { action: "click", selector: "#print-two" },
          { action: "expect_text", text: "list page", selector: "#list" },
        ],
      }),
      makeContext(),
    );
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
    assert.equal(receipt.network.popupsClosed, 2);
  });
});

describe("new tabs from the attacker's side", () => {
  test("a tab to a private address is closed with nothing sent; the task fails only when a step needed that tab", async () => {
    const stays = await execute(
      makeTask({
        target: { url: invoices() },
        steps: [
          { action: "click", selector: "#print-away" },
          { action: "expect_text", text: "list page", selector: "#list" },
        ],
      }),
      makeContext(),
    );
    assert.equal(stays.receipt.status, "PASS", JSON.stringify(stays.receipt.error));
    assert.equal(stays.receipt.network.popupsClosed, 1);
    assert.ok(stays.receipt.network.navigationsBlocked >= 1, JSON.stringify(stays.receipt.network));

    const needs = await execute(
      makeTask({
        target: { url: invoices() },
        steps: [
          { action: "click", selector: "#print-away", then: "follow_new_tab" },
          { action: "expect_text", text: "Invoice 42" },
        ],
      }),
      makeContext(),
    );
    assert.equal(needs.receipt.status, "FAIL");
    assert.equal(needs.receipt.error?.step, 0);
    assert.equal(needs.receipt.error?.code, "navigation_blocked", JSON.stringify(needs.receipt.error));
    assert.equal(away.tcpConnections(), 0, "the private address received a connection");
    assert.equal(away.udpDatagrams(), 0);
  });

  test("the followed tab keeps every guard: read_only holds its form POST and unload beacon to nothing sent, its private subresource is refused", async () => {
    const writes = () => site.hits.filter((h) => h.method !== "GET" && h.method !== "HEAD").length;
    const before = writes();
    const { receipt } = await execute(
      makeTask({
        target: { url: invoices() },
        steps: [
          { action: "click", selector: "#print" },
          { action: "expect_text", text: "Invoice 42", selector: "#invoice" },
          { action: "click", selector: "#mark" },
          { action: "goto", url: invoices() },
          { action: "expect_text", text: "list page", selector: "#list" },
        ],
      }),
      makeContext(),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(writes(), before, `a write reached the site: ${JSON.stringify(site.hits.slice(-5).map((h) => `${h.method} ${h.path}`))}`);
    assert.equal(site.count("/invoices/42/mark-printed"), 0);
    assert.equal(site.count("/invoices/42/left"), 0);
    assert.ok(receipt.network.nonGetAborted >= 1, JSON.stringify(receipt.network));
    assert.ok(receipt.network.blockedRequests >= 1, JSON.stringify(receipt.network));
    assert.equal(away.tcpConnections(), 0, "the private address received a connection");
  });
});
