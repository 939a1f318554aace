import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { browserlessCdpUrl, browserlessTimeoutMs, createBrowserlessProvider } from "../../src/providers/browserlessProvider.js";
import { ProviderError } from "../../src/providers/providerTypes.js";
import { startBrowserlessEmulator } from "../fixtures/providerEmulators/browserlessEmulator.js";
import type { ProviderEmulator } from "../fixtures/providerEmulators/providerEmulator.js";
import { startFixtureSites } from "../fixtures/fixtureSite.js";
import { makeTask, providerContract, runOn } from "./providerContract.js";
import type { Sites } from "./providerContract.js";

providerContract({
  name: "browserless",
  credentialEnv: "BROWSERLESS_TOKEN",
  start: () => startBrowserlessEmulator(),
  make: (options) => createBrowserlessProvider(options),
  createFault: "connect",
  explicitRelease: false,
  endsOnDisconnect: true,
});

describe("browserless helpers", () => {
  it("sizes the session timeout as budget plus grace, capped at the plan's longest session", () => {
    assert.equal(browserlessTimeoutMs(25_000), 40_000);
    assert.equal(browserlessTimeoutMs(120_000), 60_000, "the default cap");
    assert.equal(browserlessTimeoutMs(120_000, 15_000, 300_000), 135_000);
  });

  it("builds the CDP URL from a region endpoint or a base URL, with token, timeout and trackingId", () => {
    const url = new URL(browserlessCdpUrl("https://production-lon.browserless.io", "t/k n", 40_000, "errand-abc"));
    assert.equal(url.protocol, "wss:");
    assert.equal(url.searchParams.get("token"), "t/k n");
    assert.equal(url.searchParams.get("timeout"), "40000");
    assert.equal(url.searchParams.get("trackingId"), "errand-abc");
    assert.equal(
      new URL(browserlessCdpUrl("http://127.0.0.1:3000/chromium", "t", 1, "x")).toString(),
      "ws://127.0.0.1:3000/chromium?token=t&timeout=1&trackingId=x",
    );
    assert.throws(
      () => browserlessCdpUrl("ftp://example.com", "t", 1, "x"),
      (e: unknown) => e instanceof ProviderError && e.code === "configuration_error",
    );
  });

  it("refuses an unknown BROWSERLESS_REGION as configuration_error", async () => {
    const provider = createBrowserlessProvider({ env: { BROWSERLESS_TOKEN: "abcd", BROWSERLESS_REGION: "moon" } });
    await assert.rejects(
      provider.openSession({ budgetMs: 1_000, signal: new AbortController().signal }),
      (e: unknown) => e instanceof ProviderError && e.code === "configuration_error",
    );
  });
});

describe("browserless adapter, wire details", () => {
  let sites: Sites;
  let emulator: ProviderEmulator;
  before(async () => {
    sites = await startFixtureSites();
    emulator = await startBrowserlessEmulator({ concurrent: 1 });
  });
  after(async () => {
    await emulator.close();
    await sites.close();
  });

  it("always sends token, timeout (never Browserless's 30 s default) and a trackingId; closing the socket ends the session", async () => {
    const { receipt } = await runOn(
      createBrowserlessProvider({ env: emulator.env }),
      sites,
      makeTask({ target: { url: `${sites.site.origin}/` }, evidenceRetention: "full", steps: [{ action: "expect_url", url: `${sites.site.origin}/` }] }),
    );
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
    const connect = emulator.core.requests.find((r) => r.method === "UPGRADE");
    assert.equal(connect?.query.get("token"), emulator.env["BROWSERLESS_TOKEN"]);
    assert.equal(connect?.query.get("timeout"), "30000", "the 15 s task budget plus 15 s grace");
    assert.equal(connect?.query.get("trackingId"), receipt.providerSessionId);
    assert.match(receipt.providerSessionId ?? "", /^errand-[0-9a-f]{24}$/);
    assert.deepEqual(await emulator.core.settled(), []);
    assert.equal(emulator.core.sessions.get(receipt.providerSessionId ?? "")?.endedBy, "disconnect");
  });

  it("maps the concurrency limit (429 on the upgrade) to provider_capacity while a session is held", async () => {
    const provider = createBrowserlessProvider({ env: emulator.env });
    const held = await provider.openSession({ budgetMs: 10_000, signal: new AbortController().signal });
    try {
      await assert.rejects(
        provider.openSession({ budgetMs: 10_000, signal: new AbortController().signal }),
        (e: unknown) => e instanceof ProviderError && e.code === "provider_capacity",
      );
    } finally {
      await held.release();
    }
    assert.deepEqual(await emulator.core.settled(), []);
  });

  it("reports Browserless ending the session at its timeout (BROWSERLESS_MAX_SESSION_MS) as provider_unavailable, at once", async () => {
    // The session must outlive errand's CDP connect (Playwright cannot notice a drop while it is
    // still connecting; that case is bounded by the start timeout instead), so it ends at 3 s, while
    // the step is still waiting for a selector that never comes.
    const started = Date.now();
    const { receipt } = await runOn(
      createBrowserlessProvider({ env: { ...emulator.env, BROWSERLESS_MAX_SESSION_MS: "3000" } }),
      sites,
      makeTask({ target: { url: `${sites.site.origin}/` }, evidenceRetention: "full", steps: [{ action: "wait_for", selector: "#never", timeoutMs: 10_000 }] }),
    );
    const answered = Date.now();
    assert.equal(receipt.status, "FAIL");
    assert.equal(receipt.error?.code, "provider_unavailable");
    const session = emulator.core.sessions.get(receipt.providerSessionId ?? "");
    assert.equal(session?.endedBy, "timeout");
    const endedAfterMs = (session?.endedAt ?? Infinity) - started;
    assert.ok(answered - started - endedAfterMs < 2_000, `errand answered ${answered - started - endedAfterMs} ms after Browserless ended the session`);
    assert.ok(receipt.durationMs < 10_000, "before the step's own wait would have ended");
    assert.deepEqual(await emulator.core.settled(), []);
  });
});
