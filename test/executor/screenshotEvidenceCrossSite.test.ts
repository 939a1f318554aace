// Screenshots as evidence with a password field in a CROSS-SITE iframe that Chromium runs out of
// process (its own renderer and DevTools target, an OOPIF). On loopback such a frame cannot be
// built: errand hands the main document to the browser itself, and Chromium's Local Network Access
// checks then refuse a loopback or private iframe. So both sites are public-looking addresses in a
// network namespace (test/fixtures/publicHostNamespace.ts), reached through errand's egress proxy.
// Needs root and `ip netns`; skips with a notice otherwise.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Frame } from "playwright-core";
import { createExecutor } from "../../src/executor/createExecutor.js";
import type { ExecuteTask } from "../../src/executor/executeTaskTypes.js";
import { createPolicyNetworkGuard } from "../../src/executor/policyNetworkGuard.js";
import { startSessionProxy } from "../../src/app/buildExecutor.js";
import type { OperatorNetworkPolicy } from "../../src/app/operatorNetworkPolicy.js";
import { createStaticResolver } from "../../src/policy/staticResolver.js";
import { createLocalProvider } from "../../src/providers/local/localProvider.js";
import type { BrowserProvider } from "../../src/providers/providerTypes.js";
import { decodePng } from "../fixtures/decodePng.js";
import { namespaceUnavailable, startPublicHosts } from "../fixtures/publicHostNamespace.js";
import type { PublicHosts } from "../fixtures/publicHostNamespace.js";
import { carriesCanary } from "../secrets/support/secretSites.js";
import { makeContext, makeTask } from "./attemptSupport.js";
import { memoryVault } from "./memoryVault.js";
import { FORM, GREEN, MASK, regionIs } from "./screenshotPixels.js";

/** Host A serves the page; host B, another site, the framed form. Not publicHosts.test.ts's addresses. */
const HOST_A = "203.0.114.30";
const HOST_B = "203.0.114.31";
const OUTER = `http://${HOST_A}/outer`;
const CANARY = "Canary-CrossSite-Secret-7741";
const html = (body: string) => `<!doctype html><html><head><title>Cross-site</title></head><body>${body}</body></html>`;
/** A green text field (0-60 px) and the cross-site iframe below it (100-520 px), its form inside (password 100-160, text 200-500). */
const PAGE_A = html(`<style>body{margin:0;background:#fff}</style>
  <input id="outer" type="text" value="outer text" style="position:absolute;top:0;left:0;width:100%;height:60px;border:0;padding:0;margin:0;background:#00ff00;font-size:40px">
  <iframe src="http://${HOST_B}/frame" style="position:absolute;left:0;top:100px;width:100%;height:420px;border:0"></iframe>
  <p style="position:absolute;top:560px">Ready</p>`);

const unavailable = namespaceUnavailable();
if (unavailable !== null) console.log(`# SKIPPED cross-site iframe screenshot tests: ${unavailable}`);

/** What the page looked like when the session was sealed, right after the screenshot. */
interface Seen {
  frameUrls: string[];
  /** DevTools targets of type "iframe": out-of-process frames, by URL. */
  oopifUrls: string[];
}

let hosts: PublicHosts;
let provider: BrowserProvider;
let execute: ExecuteTask;
const seen: Seen[] = [];

/** The local provider, with each session's page inspected in seal() (after the screenshot, before the pages close). */
function inspectingProvider(policy: OperatorNetworkPolicy): BrowserProvider {
  const local = createLocalProvider({ env: process.env, proxyForSession: (scope) => startSessionProxy(policy, scope) });
  return {
    ...local,
    missingConfiguration: () => local.missingConfiguration(),
    shutdown: () => local.shutdown(),
    async openSession(options) {
      const session = await local.openSession(options);
      const seal = session.seal?.bind(session);
      return {
        ...session,
        release: () => session.release(),
        async seal() {
          const [page] = session.context.pages();
          if (page !== undefined) {
            const cdp = await session.context.newCDPSession(page);
            const { targetInfos } = (await cdp.send("Target.getTargets")) as { targetInfos: { type: string; url: string }[] };
            await cdp.detach();
            seen.push({ frameUrls: page.frames().map((f: Frame) => f.url()), oopifUrls: targetInfos.filter((t) => t.type === "iframe").map((t) => t.url) });
          }
          await seal?.();
        },
      };
    },
  };
}

describe("evidence.screenshots with a cross-site, out-of-process iframe", { skip: unavailable ?? false, timeout: 120_000 }, () => {
  before(async () => {
    hosts = await startPublicHosts([HOST_A, HOST_B], [80], { [`${HOST_A}:80/outer`]: PAGE_A, [`${HOST_B}:80/frame`]: html(FORM) });
    const resolver = createStaticResolver({});
    const policy: OperatorNetworkPolicy = { resolver, allowPrivate: [], guard: createPolicyNetworkGuard({ resolver, allowPrivate: [] }) };
    provider = inspectingProvider(policy);
    execute = createExecutor({
      provider,
      guard: policy.guard,
      secrets: memoryVault({ FORM_SECRET: { sites: [`http://${HOST_A}`], value: CANARY } }),
      defaultTaskTimeoutMs: 25_000,
      defaultStepTimeoutMs: 5_000,
    });
  });

  after(async () => {
    await provider?.shutdown();
    await hosts?.close();
  });

  /** The last run's page had the frame from host B, and Chromium ran it as its own target (an OOPIF). */
  function assertOutOfProcess(): void {
    const last = seen.at(-1);
    assert.ok(last !== undefined, "the session was never inspected");
    assert.ok(last.frameUrls.includes(`http://${HOST_B}/frame`), `the page's frames: ${JSON.stringify(last.frameUrls)}`);
    assert.ok(last.oopifUrls.includes(`http://${HOST_B}/frame`), `host B's frame is no out-of-process target: ${JSON.stringify(last)}`);
  }

  test("passwords: the OOPIF's password field is the mask colour; its text field and the page's own text field are not masked", async () => {
    const outcome = await execute(
      makeTask({ target: { url: OUTER }, evidence: { screenshots: "final" }, steps: [{ action: "expect_text", text: "Ready" }] }),
      makeContext(),
    );
    assert.equal(outcome.receipt.status, "PASS", JSON.stringify(outcome.receipt.error));
    assertOutOfProcess();
    const image = outcome.artifacts?.[0]?.data;
    assert.ok(image !== undefined, outcome.receipt.artifactsOmitted);
    const png = decodePng(image);
    assert.ok(regionIs(png, GREEN, { x0: Math.floor(png.width / 2), y0: 2, x1: png.width - 3, y1: 57 }), "the page's own text field is left as it is");
    assert.ok(regionIs(png, MASK, { x0: 2, y0: 102, x1: png.width - 3, y1: 157 }), "the cross-site frame's password field's whole box is the mask colour");
    assert.ok(
      regionIs(png, GREEN, { x0: Math.floor(png.width / 2), y0: 210, x1: png.width - 3, y1: 490 }),
      "the cross-site frame's text field is left as it is",
    );
  });

  test("after fill_secret into the page's field: that field and the whole cross-site iframe are masked, and the canary is in no image byte", async () => {
    const outcome = await execute(
      makeTask({
        target: { url: OUTER },
        risk: "reversible_write",
        approved: true,
        secretApproval: true,
        evidence: { screenshots: "final" },
        steps: [
          { action: "fill_secret", selector: "#outer", secret: "FORM_SECRET" },
          { action: "expect_text", text: "Ready" },
        ],
      }),
      makeContext(),
    );
    assert.equal(outcome.receipt.status, "PASS", JSON.stringify(outcome.receipt.error));
    assertOutOfProcess();
    const image = outcome.artifacts?.[0]?.data;
    assert.ok(image !== undefined, outcome.receipt.artifactsOmitted);
    const png = decodePng(image);
    assert.ok(regionIs(png, MASK, { x0: 2, y0: 2, x1: png.width - 3, y1: 57 }), "the field the secret went into is masked");
    assert.ok(regionIs(png, MASK, { x0: 2, y0: 102, x1: png.width - 3, y1: 517 }), "the whole cross-site iframe is masked");
    assert.ok(!carriesCanary(image.toString("latin1"), CANARY));
    assert.ok(!carriesCanary(JSON.stringify(outcome.receipt), CANARY));
  });
});
