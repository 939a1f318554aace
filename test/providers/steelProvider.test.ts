import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createSteelProvider, steelCdpUrl, steelTimeoutMs } from "../../src/providers/steelProvider.js";
import { startSteelEmulator } from "../fixtures/providerEmulators/steelEmulator.js";
import type { ProviderEmulator } from "../fixtures/providerEmulators/providerEmulator.js";
import { startFixtureSites } from "../fixtures/fixtureSite.js";
import { makeTask, providerContract, runOn } from "./providerContract.js";
import type { Sites } from "./providerContract.js";

providerContract({
  name: "steel",
  credentialEnv: "STEEL_API_KEY",
  start: () => startSteelEmulator(),
  make: (options) => createSteelProvider(options),
  createFault: "create",
  explicitRelease: true,
  endsOnDisconnect: false,
});

describe("steel helpers", () => {
  it("sizes the session timeout in milliseconds: budget plus grace, at least 10 s, at most the plan's maximum", () => {
    assert.equal(steelTimeoutMs(25_000), 40_000);
    assert.equal(steelTimeoutMs(0, 0), 10_000);
    assert.equal(steelTimeoutMs(60 * 60_000), 15 * 60_000, "the Launch plan's 15-minute cap");
    assert.equal(steelTimeoutMs(60 * 60_000, 0, 60 * 60_000), 60 * 60_000);
  });

  it("adds the API key to the websocketUrl as apiKey, keeping its sessionId", () => {
    const url = new URL(steelCdpUrl("wss://connect.steel.dev?sessionId=abc", "k&y"));
    assert.equal(url.searchParams.get("sessionId"), "abc");
    assert.equal(url.searchParams.get("apiKey"), "k&y");
  });
});

describe("steel adapter, wire details", () => {
  let sites: Sites;
  let emulator: ProviderEmulator;
  before(async () => {
    sites = await startFixtureSites();
    emulator = await startSteelEmulator();
  });
  after(async () => {
    await emulator.close();
    await sites.close();
  });

  it("creates under an id errand chose with a timeout in ms and no paid add-ons, connects with apiKey, releases by id", async () => {
    const { receipt } = await runOn(
      createSteelProvider({ env: { ...emulator.env, STEEL_MAX_SESSION_MS: "30000" } }),
      sites,
      makeTask({ target: { url: `${sites.site.origin}/` }, evidenceRetention: "full", steps: [{ action: "expect_url", url: `${sites.site.origin}/` }] }),
    );
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
    const create = emulator.core.requests.find((r) => r.method === "POST" && r.path === "/v1/sessions");
    assert.equal(create?.headers["steel-api-key"], emulator.env["STEEL_API_KEY"]);
    const body = JSON.parse(create?.body ?? "{}") as Record<string, unknown>;
    assert.equal(body["timeout"], 30_000, "25 s budget + 15 s grace, capped by STEEL_MAX_SESSION_MS");
    assert.equal(body["useProxy"], false);
    assert.equal(body["solveCaptcha"], false);
    assert.equal(body["sessionId"], receipt.providerSessionId);
    const connect = emulator.core.requests.find((r) => r.method === "UPGRADE");
    assert.equal(connect?.query.get("apiKey"), emulator.env["STEEL_API_KEY"]);
    assert.equal(connect?.query.get("sessionId"), receipt.providerSessionId);
    assert.ok(emulator.core.requests.some((r) => r.method === "POST" && r.path === `/v1/sessions/${receipt.providerSessionId}/release`));
    assert.deepEqual(await emulator.core.settled(), []);
  });

  it("refuses a malformed STEEL_MAX_SESSION_MS as configuration_error", async () => {
    const { receipt } = await runOn(
      createSteelProvider({ env: { ...emulator.env, STEEL_MAX_SESSION_MS: "soon" } }),
      sites,
      makeTask({ target: { url: `${sites.site.origin}/` }, steps: [{ action: "expect_url", url: `${sites.site.origin}/` }] }),
    );
    assert.equal(receipt.status, "BLOCKED");
    assert.equal(receipt.error?.code, "configuration_error");
  });
});
