// Declared secrets in a real Chromium, tried from the attacker's side: the secret is typed only into
// a frame on a bound origin, and once typed it never leaves for another origin, whatever the page
// does (cross-origin form action, 307/302 redirects, fetch, XHR, beacon, image, cookie, WebSocket,
// upper-cased, spaced or base64). A counting site records everything that reaches it.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { createExecutor } from "../../src/executor/createExecutor.js";
import { createPolicyNetworkGuard } from "../../src/executor/policyNetworkGuard.js";
import { startSessionProxy } from "../../src/app/buildExecutor.js";
import { parseAllowPrivate } from "../../src/policy/parseAllowPrivate.js";
import { createStaticResolver } from "../../src/policy/staticResolver.js";
import { createLocalProvider } from "../../src/providers/local/localProvider.js";
import type { Receipt } from "../../src/receipt/receiptTypes.js";
import type { Task } from "../../src/task/taskTypes.js";
import { validateTask } from "../../src/task/validateTask.js";
import { makeContext, makeTask } from "../executor/attemptSupport.js";
import { loopbackGuard } from "../executor/loopbackGuard.js";
import { memoryVault } from "../executor/memoryVault.js";
import { carriesCanary, startSecretSites } from "./support/secretSites.js";
import type { SecretSites } from "./support/secretSites.js";

const CANARY = "Canary Egress 7f3Q";
let sites: SecretSites;
const provider = createLocalProvider({ env: process.env });
let execute: ReturnType<typeof createExecutor>;

before(async () => {
  sites = await startSecretSites();
  execute = createExecutor({
    provider,
    guard: loopbackGuard([sites.portal.origin, sites.evil.origin]),
    secrets: memoryVault({ portal_pw: { sites: [sites.portal.origin], value: CANARY } }),
    defaultTaskTimeoutMs: 20_000,
    defaultStepTimeoutMs: 5_000,
  });
});
after(async () => {
  await provider.shutdown();
  await sites.close();
});

const write = (target: string, steps: unknown[]) =>
  makeTask({ target: { url: target }, risk: "reversible_write", approved: true, secretApproval: true, steps });

function assertNothingLeaked(receipt: Receipt): void {
  assert.ok(!carriesCanary(sites.evil.everything(), CANARY), `the evil origin received the canary: ${sites.evil.everything().slice(0, 400)}`);
  assert.ok(!carriesCanary(JSON.stringify(receipt), CANARY), "the receipt carries the canary");
}

describe("declared secrets from the attacker's side", () => {
  test("secretEgress: a form on the bound site posting to another allowed origin does not deliver the value", async () => {
    const before = sites.evil.received.length;
    const { receipt } = await execute(
      write(`${sites.portal.origin}/login-cross`, [
        { action: "fill_secret", selector: "#password", secret: "portal_pw" },
        { action: "click", selector: "#go" },
        { action: "expect_text", text: "never" },
      ]),
      makeContext(),
    );
    assert.equal(receipt.error?.code, "secret_egress_blocked", JSON.stringify(receipt.error));
    assert.ok(receipt.network.secretEgressBlocked >= 1);
    assert.ok(receipt.network.blocked.some((b) => b.code === "secret_egress_blocked"));
    assert.equal(sites.evil.received.length, before, "nothing at all reached the other origin");
    assertNothingLeaked(receipt);
  });

  test("secretEgress: the bound site itself receives the value (positive control)", async () => {
    const { receipt } = await execute(
      write(`${sites.portal.origin}/login-ok`, [
        { action: "fill_secret", selector: "#password", secret: "portal_pw" },
        { action: "click", selector: "#go" },
        { action: "expect_text", text: "Signed in" },
      ]),
      makeContext(),
    );
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
    assert.ok(
      sites.portal.received.some((r) => r.url === "/session" && carriesCanary(r.body, CANARY)),
      "the bound origin got the form post",
    );
    assert.equal(receipt.network.secretEgressBlocked, 0);
  });

  test("secretEgress: a 307 redirect from the bound site to another origin does not re-send the body there", async () => {
    const before = sites.evil.received.length;
    const { receipt } = await execute(
      write(`${sites.portal.origin}/bounce-post`, [
        { action: "fill_secret", selector: "#password", secret: "portal_pw" },
        { action: "click", selector: "#go" },
        { action: "expect_text", text: "never" },
      ]),
      makeContext(),
    );
    assert.equal(receipt.error?.code, "secret_egress_blocked", JSON.stringify(receipt.error));
    assert.equal(sites.evil.received.length, before);
    assertNothingLeaked(receipt);
  });

  test("secretEgress: a 302 whose Location carries the value to another origin is not followed", async () => {
    const before = sites.evil.received.length;
    const { receipt } = await execute(
      write(`${sites.portal.origin}/bounce-get`, [
        { action: "fill_secret", selector: "#password", secret: "portal_pw" },
        { action: "click", selector: "#go" },
        { action: "expect_text", text: "never" },
      ]),
      makeContext(),
    );
    assert.equal(receipt.error?.code, "secret_egress_blocked", JSON.stringify(receipt.error));
    assert.equal(sites.evil.received.length, before);
    assertNothingLeaked(receipt);
  });

  test("secretEgress: fetch, XHR, beacon, image, cookie and WebSocket carrying the value (raw, upper-case, spaced, base64) are aborted", async () => {
    const { receipt } = await execute(
      write(`${sites.portal.origin}/exfil`, [
        { action: "fill_secret", selector: "#password", secret: "portal_pw" },
        { action: "expect_text", selector: "#done", text: "sent" },
        { action: "wait_for", selector: "#never", timeoutMs: 2_500 },
      ]),
      makeContext(),
    );
    assert.equal(receipt.error?.code, "timeout", "the page itself ran to the end");
    assert.ok(
      receipt.network.secretEgressBlocked >= 8,
      `blocked ${receipt.network.secretEgressBlocked}: ${JSON.stringify(receipt.network.blocked.map((b) => b.url))}`,
    );
    assert.equal(sites.evil.udpDatagrams.length, 0);
    assert.ok(!sites.evil.wsMessages.some((m) => carriesCanary(m, CANARY)), "no WebSocket message carried it");
    assertNothingLeaked(receipt);
  });

  // Requests a document sends while it unloads (beacons, keepalive fetches) can pass by Playwright's
  // route(). Run as a deployment runs: the session's egress proxy, named hosts under operator
  // allowances (the proxy, not Chromium, reaches them, so Chromium's own Local Network Access
  // checks do not stand in for errand's), the other origin one of the task's allowedHosts.
  test("secretEgress: beacons and keepalive fetches sent while the page unloads (goto, link click) never deliver the value", async () => {
    const portalPort = new URL(sites.portal.origin).port;
    const evilPort = new URL(sites.evil.origin).port;
    const portal = `http://portal.test:${portalPort}`;
    const allowances = parseAllowPrivate([`portal.test:${portalPort}`, `attacker.test:${evilPort}`]);
    assert.ok(allowances.ok);
    const resolver = createStaticResolver({ "portal.test": ["127.0.0.1"], "attacker.test": ["127.0.0.1"] });
    const policy = { resolver, allowPrivate: allowances.value, guard: createPolicyNetworkGuard({ resolver, allowPrivate: allowances.value }) };
    const proxied = createLocalProvider({ env: process.env, proxyForSession: (scope) => startSessionProxy(policy, scope) });
    try {
      const run = createExecutor({
        provider: proxied,
        guard: policy.guard,
        secrets: memoryVault({ portal_pw: { sites: [portal], value: CANARY } }),
        defaultTaskTimeoutMs: 20_000,
        defaultStepTimeoutMs: 5_000,
      });
      const fromUnload = () => sites.evil.received.filter((r) => /^\/(beacon|keepalive|probe)/.test(r.url));
      const before = fromUnload().length;
      for (const step of [
        { action: "goto", url: `${portal}/home` },
        { action: "click", selector: "#away" },
      ]) {
        const { receipt } = await run(
          makeTask({
            target: { url: `${portal}/unload-exfil?to=attacker.test` },
            allowedHosts: ["attacker.test"],
            risk: "reversible_write",
            approved: true,
            secretApproval: true,
            steps: [
              { action: "fill_secret", selector: "#password", secret: "portal_pw" },
              { action: "expect_text", selector: "#done", text: "held" },
              step,
              { action: "expect_text", text: "Signed in" },
            ],
          }),
          makeContext(),
        );
        assert.equal(receipt.status, "PASS", `${step.action}: ${JSON.stringify(receipt.error)}`);
        assert.ok(receipt.network.secretEgressBlocked >= 1, `${step.action}: ${JSON.stringify(receipt.network)}`);
        assertNothingLeaked(receipt);
      }
      const arrived = fromUnload().slice(before);
      // The control: the page's unload-time requests without the value do reach the other origin.
      assert.ok(
        arrived.some((r) => r.url.startsWith("/probe")),
        `no unload-time request arrived at all: ${JSON.stringify(arrived.map((r) => r.url))}`,
      );
      assert.deepEqual(
        arrived.filter((r) => carriesCanary(JSON.stringify(r), CANARY)).map((r) => r.url),
        [],
        "an unload-time request carried the value",
      );
    } finally {
      await proxied.shutdown();
    }
  });

  // The refusal in the receipt is errand's guard deciding; the silent listener is guarded twice here,
  // because Chromium's Local Network Access checks also refuse a socket to 127.0.0.1 from a document
  // errand handed to the browser (docs/CURRENT_STATE.md).
  test("secretEgress: once a secret is typed, no WebSocket opens to an origin it is not bound to, whatever its messages (the handshake could carry a cookie)", async () => {
    const upgrades = () => sites.evil.received.filter((r) => r.method === "UPGRADE").length;
    const before = upgrades();
    const { receipt } = await execute(
      write(`${sites.portal.origin}/ws-after`, [
        { action: "fill_secret", selector: "#password", secret: "portal_pw" },
        { action: "expect_text", selector: "#done", text: "tried" },
        { action: "wait_for", selector: "#never", timeoutMs: 1_000 },
      ]),
      makeContext(),
    );
    assert.equal(receipt.error?.code, "timeout", "the page itself ran to the end");
    assert.equal(upgrades(), before, "no handshake reached the other origin");
    assert.ok(
      receipt.network.blocked.some((b) => b.resourceType === "websocket" && b.code === "secret_egress_blocked"),
      JSON.stringify(receipt.network.blocked),
    );
    assertNothingLeaked(receipt);
  });

  test("secretSite: a field on another origin, or in a frame without an origin of its own (srcdoc), is never typed into (BLOCKED, secret_site_mismatch)", async () => {
    const typedOrPosted = () => sites.evil.received.filter((r) => r.url.startsWith("/typed") || r.method === "POST").length;
    const before = typedOrPosted();
    // A task cannot aim fill_secret into a frame at all: neither the frame field nor Playwright's frame-entering engine passes the validator.
    const intoFrame = (step: Record<string, unknown>) =>
      validateTask({
        schemaVersion: "errand.task.v1",
        operationId: randomUUID(),
        target: { url: `${sites.portal.origin}/framed-srcdoc` },
        risk: "reversible_write",
        approved: true,
        secretApproval: true,
        steps: [{ action: "fill_secret", secret: "portal_pw", ...step }],
      });
    for (const step of [{ selector: "#password", frame: "#s" }, { selector: "#s >> internal:control=enter-frame >> #password" }]) {
      const refused = intoFrame(step);
      assert.ok(!refused.ok, JSON.stringify(step));
    }
    // Behind the validator, the executor holds too: a srcdoc frame inherits its parent's origin, but the
    // browser records no URL origin for it, so errand refuses to type there (fail closed).
    const valid = write(`${sites.portal.origin}/framed-srcdoc`, [{ action: "fill_secret", selector: "#password", secret: "portal_pw" }]);
    const pierced = { ...valid, steps: [{ ...valid.steps[0], selector: "#s >> internal:control=enter-frame >> #password" }] } as Task;
    const framed = await execute(pierced, makeContext());
    assert.equal(framed.receipt.status, "BLOCKED", JSON.stringify(framed.receipt.error));
    assert.equal(framed.receipt.error?.code, "secret_site_mismatch");
    assert.equal(framed.receipt.mutationBoundary, "not_crossed");
    const direct = await execute(
      write(`${sites.evil.origin}/login`, [
        { action: "fill_secret", selector: "#password", secret: "portal_pw" },
        { action: "click", selector: "#go" },
      ]),
      makeContext(),
    );
    assert.equal(direct.receipt.status, "BLOCKED");
    assert.equal(direct.receipt.error?.code, "secret_site_mismatch");
    assert.equal(typedOrPosted(), before, "nothing was typed, nothing posted");
    assertNothingLeaked(framed.receipt);
    assertNothingLeaked(direct.receipt);
  });

  test("secretSite: an undeclared name is BLOCKED before any browser opens (secret_unknown), nothing reaches any site", async () => {
    const portalBefore = sites.portal.connections();
    const evilBefore = sites.evil.connections();
    for (const name of ["ERRAND_OWNER_PASSWORD", "KERNEL_API_KEY", "PATH", "HOME"]) {
      const { receipt } = await execute(
        write(`${sites.portal.origin}/login-ok`, [{ action: "fill_secret", selector: "#password", secret: name }]),
        makeContext(),
      );
      assert.equal(receipt.status, "BLOCKED", name);
      assert.equal(receipt.error?.code, "secret_unknown", name);
    }
    assert.equal(sites.portal.connections(), portalBefore);
    assert.equal(sites.evil.connections(), evilBefore);
  });
});
