import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createBrowserlessProvider } from "../../src/providers/browserlessProvider.js";
import { ProviderError } from "../../src/providers/providerTypes.js";
import { browserlessUnavailable, startBrowserlessServer } from "../fixtures/browserlessServer.js";
import type { BrowserlessServer } from "../fixtures/browserlessServer.js";
import { startFixtureSites } from "../fixtures/fixtureSite.js";
import { makeTask, runOn } from "./providerContract.js";
import type { Sites } from "./providerContract.js";

const TOKEN = "errand-test-token-3f9a1c";

/**
 * The Browserless adapter against the real open-source Browserless server (npm
 * @browserless.io/browserless, pinned in .ci/browserless and installed there on demand by .ci/run),
 * on 127.0.0.1 with one concurrent session, no queue, and
 * Debian's Chromium. This is the one provider whose actual server errand can run in CI.
 */
const unavailable = browserlessUnavailable();
if (unavailable !== null) process.stderr.write(`notice: skipping the Browserless server tests: ${unavailable}\n`);

describe("browserless adapter, against the real open-source Browserless server", { skip: unavailable ?? false }, () => {
  let sites: Sites;
  let server: BrowserlessServer;
  const env = () => ({ BROWSERLESS_TOKEN: TOKEN, BROWSERLESS_BASE_URL: server.wsBase });
  const idle = async () => {
    const until = Date.now() + 5_000;
    let pressure = await server.pressure();
    while (pressure.running + pressure.queued > 0 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      pressure = await server.pressure();
    }
    return pressure;
  };

  before(async () => {
    sites = await startFixtureSites();
    server = await startBrowserlessServer({ token: TOKEN, concurrent: 1, queued: 0, timeoutMs: 20_000 });
  });
  after(async () => {
    await server?.stop();
    await sites?.close();
  });

  it("runs a task to PASS through it and frees the slot when errand closes the connection", async () => {
    const outcome = await runOn(
      createBrowserlessProvider({ env: env() }),
      sites,
      makeTask({
        target: { url: `${sites.site.origin}/` },
        steps: [
          { action: "extract_text", selector: "#title", name: "title" },
          { action: "expect_text", text: "Fixture Home", selector: "#title", match: "exact" },
        ],
      }),
    );
    assert.equal(outcome.receipt.status, "PASS", JSON.stringify(outcome.receipt.error));
    assert.equal(outcome.ephemeral.outputs["title"], "Fixture Home");
    assert.ok(!JSON.stringify(outcome).includes(TOKEN));
    const pressure = await idle();
    assert.equal(pressure.running, 0, "the session ended when errand closed the WebSocket");
  });

  it("maps a bad token (WebSocket 401) to provider_auth_failed, BLOCKED", async () => {
    const outcome = await runOn(
      createBrowserlessProvider({ env: { ...env(), BROWSERLESS_TOKEN: "not-the-token" } }),
      sites,
      makeTask({ target: { url: `${sites.site.origin}/` }, steps: [{ action: "expect_url", url: `${sites.site.origin}/` }] }),
    );
    assert.equal(outcome.receipt.status, "BLOCKED");
    assert.equal(outcome.receipt.error?.code, "provider_auth_failed");
    assert.ok(!JSON.stringify(outcome).includes("not-the-token"));
  });

  it("maps a session beyond its concurrency limit (and no queue) to provider_capacity", async () => {
    const provider = createBrowserlessProvider({ env: env() });
    const held = await provider.openSession({ budgetMs: 10_000, signal: new AbortController().signal });
    try {
      const error = await provider.openSession({ budgetMs: 10_000, signal: new AbortController().signal }).then(
        () => assert.fail("a second session must be refused"),
        (e: unknown) => e,
      );
      assert.ok(error instanceof ProviderError);
      assert.equal(error.code, "provider_capacity", error.message);
      assert.ok(!error.message.includes(TOKEN));
    } finally {
      await held.release();
    }
    assert.equal((await idle()).running, 0);
  });

  it("reports the server ending a session at its timeout as provider_unavailable, not as a site failure", async () => {
    const outcome = await runOn(
      createBrowserlessProvider({ env: { ...env(), BROWSERLESS_MAX_SESSION_MS: "8000" } }),
      sites,
      makeTask({
        target: { url: `${sites.site.origin}/` },
        timeouts: { taskMs: 60_000 },
        steps: [{ action: "wait_for", selector: "#never", timeoutMs: 40_000 }],
      }),
    );
    assert.equal(outcome.receipt.status, "FAIL");
    assert.equal(outcome.receipt.error?.code, "provider_unavailable", JSON.stringify(outcome.receipt.error));
    // Noticed when the server ended the session (8 s after it opened), not when the 40 s step ran
    // out. The session must outlive errand's CDP connect: a server that ends it mid-connect leaves
    // the connect waiting out its own 30 s (seen with 2 s on a loaded machine).
    assert.ok(
      outcome.receipt.durationMs < 25_000,
      `the timeout was noticed at once (${outcome.receipt.durationMs} ms): ${JSON.stringify(outcome.receipt.error)}`,
    );
    assert.equal((await idle()).running, 0);
  });
});
