import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { BROWSERBASE_METADATA_KEY, browserbaseTimeoutSeconds, createBrowserbaseProvider } from "../../src/providers/browserbaseProvider.js";
import { ProviderError } from "../../src/providers/providerTypes.js";
import { startBrowserbaseEmulator } from "../fixtures/providerEmulators/browserbaseEmulator.js";
import { startFixtureSites } from "../fixtures/fixtureSite.js";
import { makeTask, providerContract, runOn } from "./providerContract.js";
import type { Sites } from "./providerContract.js";

providerContract({
  name: "browserbase",
  credentialEnv: "BROWSERBASE_API_KEY",
  start: () => startBrowserbaseEmulator(),
  make: (options) => createBrowserbaseProvider(options),
  createFault: "create",
  explicitRelease: true,
  endsOnDisconnect: true,
});

describe("browserbaseTimeoutSeconds", () => {
  it("adds the grace, rounds up to seconds and holds it to Browserbase's 60..21600", () => {
    assert.equal(browserbaseTimeoutSeconds(0, 0), 60);
    assert.equal(browserbaseTimeoutSeconds(25_000), 60);
    assert.equal(browserbaseTimeoutSeconds(60_001, 0), 61);
    assert.equal(browserbaseTimeoutSeconds(100_000, 15_000), 115);
    assert.equal(browserbaseTimeoutSeconds(10 ** 9), 21_600);
  });
});

describe("browserbase adapter, wire details", () => {
  let sites: Sites;
  let emulator: Awaited<ReturnType<typeof startBrowserbaseEmulator>>;
  before(async () => {
    sites = await startFixtureSites();
    emulator = await startBrowserbaseEmulator();
  });
  after(async () => {
    await emulator.close();
    await sites.close();
  });

  it("creates without keepAlive or recording, timeout in seconds on the wire, the project and an attempt tag; releases with REQUEST_RELEASE", async () => {
    const env = { ...emulator.env, BROWSERBASE_PROJECT_ID: emulator.projectId, BROWSERBASE_REGION: "eu-central-1" };
    const { receipt } = await runOn(
      createBrowserbaseProvider({ env }),
      sites,
      makeTask({ target: { url: `${sites.site.origin}/` }, timeouts: { taskMs: 90_000 }, steps: [{ action: "expect_url", url: `${sites.site.origin}/` }] }),
    );
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
    const create = emulator.core.requests.find((r) => r.method === "POST" && r.path === "/v1/sessions");
    assert.ok(create !== undefined);
    assert.equal(create.headers["x-bb-api-key"], emulator.env["BROWSERBASE_API_KEY"]);
    const body = JSON.parse(create.body) as Record<string, unknown>;
    assert.equal(body["timeout"], 105, "api_timeout goes out as timeout, in seconds: 90 s budget + 15 s grace");
    assert.equal(body["api_timeout"], undefined);
    assert.equal(body["keepAlive"], false);
    assert.equal(body["projectId"], emulator.projectId);
    assert.equal(body["region"], "eu-central-1");
    assert.deepEqual(body["browserSettings"], { recordSession: false, logSession: false });
    assert.match(String((body["userMetadata"] as Record<string, unknown>)[BROWSERBASE_METADATA_KEY]), /^[0-9a-f-]{36}$/);
    const release = emulator.core.requests.find((r) => r.method === "POST" && /^\/v1\/sessions\/[^/]+$/.test(r.path));
    assert.deepEqual(JSON.parse(release?.body ?? "{}"), { status: "REQUEST_RELEASE", projectId: emulator.projectId });
    assert.deepEqual(await emulator.core.settled(), []);
  });

  it("finds an unclear create's session by its metadata tag (the documented q syntax) and releases it", async () => {
    emulator.core.inject("create", { delayMs: 3_000 });
    const { receipt } = await runOn(
      createBrowserbaseProvider({ env: emulator.env, startTimeoutMs: 1_000 }),
      sites,
      makeTask({ target: { url: `${sites.site.origin}/` }, steps: [{ action: "expect_url", url: `${sites.site.origin}/` }] }),
    );
    assert.equal(receipt.error?.code, "provider_unavailable");
    const list = emulator.core.requests.filter((r) => r.method === "GET" && r.path === "/v1/sessions").at(-1);
    assert.match(list?.query.get("q") ?? "", new RegExp(`^user_metadata\\['${BROWSERBASE_METADATA_KEY}'\\]:'[0-9a-f-]{36}'$`));
    assert.deepEqual(await emulator.core.settled(), []);
  });

  it("refuses an unknown BROWSERBASE_REGION as configuration_error before any request", async () => {
    const creates = emulator.createRequests();
    const provider = createBrowserbaseProvider({ env: { ...emulator.env, BROWSERBASE_REGION: "mars-1" } });
    await assert.rejects(
      provider.openSession({ budgetMs: 5_000, signal: new AbortController().signal }),
      (e: unknown) => e instanceof ProviderError && e.code === "configuration_error" && /mars-1/.test(e.message),
    );
    const { receipt } = await runOn(
      provider,
      sites,
      makeTask({ target: { url: `${sites.site.origin}/` }, steps: [{ action: "expect_url", url: `${sites.site.origin}/` }] }),
    );
    assert.equal(receipt.status, "BLOCKED");
    assert.equal(receipt.error?.code, "configuration_error");
    assert.equal(emulator.createRequests(), creates);
  });

  it("maps a wrong project id (404 from the API) to configuration_error, not a provider outage", async () => {
    const { receipt } = await runOn(
      createBrowserbaseProvider({ env: { ...emulator.env, BROWSERBASE_PROJECT_ID: "not-this-project" } }),
      sites,
      makeTask({ target: { url: `${sites.site.origin}/` }, steps: [{ action: "expect_url", url: `${sites.site.origin}/` }] }),
    );
    assert.equal(receipt.status, "BLOCKED");
    assert.equal(receipt.error?.code, "configuration_error");
  });
});
