import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createExecutor } from "../../src/executor/createExecutor.js";
import { createPolicyNetworkGuard } from "../../src/executor/policyNetworkGuard.js";
import { startSessionProxy } from "../../src/app/buildExecutor.js";
import type { OperatorNetworkPolicy } from "../../src/app/operatorNetworkPolicy.js";
import { parseAllowPrivate } from "../../src/policy/parseAllowPrivate.js";
import { createStaticResolver } from "../../src/policy/staticResolver.js";
import { createBrowserlessProvider } from "../../src/providers/browserlessProvider.js";
import { withCappedDocuments } from "../../src/providers/withCappedDocuments.js";
import { startRecordingServer } from "../fixtures/fixtureSite.js";
import type { FixtureServer } from "../fixtures/fixtureSite.js";
import { startBrowserlessEmulator } from "../fixtures/providerEmulators/browserlessEmulator.js";
import type { ProviderEmulator } from "../fixtures/providerEmulators/providerEmulator.js";
import { makeContext, makeTask } from "../executor/attemptSupport.js";
import { memoryVault } from "../executor/memoryVault.js";
import { hugeDocument } from "../fixtures/hugeDocument.js";

/**
 * Main-frame documents on a cloud provider's session (Browserless through its real SDK against a
 * loopback emulator with a real Chromium), wrapped as errand's routed executor wraps every cloud
 * provider: streamed and capped in errand's process, through an egress proxy for the task.
 */
let emulator: ProviderEmulator;
let site: FixtureServer;
let policy: OperatorNetworkPolicy;
/** 500 MB of page; counts what actually left the site. */
const huge = hugeDocument(500);

before(async () => {
  emulator = await startBrowserlessEmulator();
  site = await startRecordingServer("127.0.0.1", {
    "/small": (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(`<!doctype html><title>t</title><p id="p">small page</p>`),
    "/huge": huge.route,
  });
  const allowances = parseAllowPrivate([site.origin.slice("http://".length)]);
  assert.ok(allowances.ok);
  const resolver = createStaticResolver({});
  policy = { resolver, allowPrivate: allowances.value, guard: createPolicyNetworkGuard({ resolver, allowPrivate: allowances.value }) };
});

after(async () => {
  await site.close();
  await emulator.close();
});

describe("cloud sessions: bounded main-frame documents", () => {
  test("a 500 MB document on a cloud session fails with document_too_large while errand's memory stays bounded; a small page still PASSes", async () => {
    const provider = withCappedDocuments(createBrowserlessProvider({ env: emulator.env }), {
      proxyForSession: (scope) => startSessionProxy(policy, scope),
      maxDocumentBytes: 10 * 1024 * 1024,
    });
    const execute = createExecutor({ provider, guard: policy.guard, secrets: memoryVault(), defaultTaskTimeoutMs: 30_000, defaultStepTimeoutMs: 10_000 });
    const small = await execute(makeTask({ target: { url: `${site.origin}/small` }, steps: [{ action: "expect_text", text: "small page" }] }), makeContext());
    assert.equal(small.receipt.status, "PASS", JSON.stringify(small.receipt.error));
    assert.equal(small.receipt.provider, "browserless");
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    try {
      const { receipt } = await execute(makeTask({ target: { url: `${site.origin}/huge` }, steps: [{ action: "expect_text", text: "a" }] }), makeContext());
      assert.equal(receipt.status, "FAIL");
      assert.equal(receipt.error?.code, "document_too_large", JSON.stringify(receipt.error));
    } finally {
      clearInterval(sampler);
      await provider.shutdown();
    }
    const grew = (peak - baseline) / (1024 * 1024);
    // Buffered whole, the page alone would be 500 MB in this process (Playwright's route.fetch).
    assert.ok(grew < 120, `errand's RSS grew by ${grew.toFixed(0)} MB`);
    assert.ok(huge.bytesSent() < 200 * 1024 * 1024, `the site got to send ${(huge.bytesSent() / 1048576).toFixed(0)} MB before errand stopped reading`);
    console.log(
      `# cloud 500 MB document: errand RSS grew ${grew.toFixed(1)} MB (peak ${(peak / 1048576).toFixed(0)} MB), site sent ${(huge.bytesSent() / 1048576).toFixed(0)} MB`,
    );
  });
});
