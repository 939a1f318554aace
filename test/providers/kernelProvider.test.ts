import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { CLEANUP_BOUND_MS } from "../../src/providers/cleanupBound.js";
import { createKernelProvider, kernelTimeoutSeconds } from "../../src/providers/kernelProvider.js";
import { startKernelEmulator } from "../fixtures/providerEmulators/kernelEmulator.js";
import type { ProviderEmulator } from "../fixtures/providerEmulators/providerEmulator.js";
import { makeTask, providerContract, runOn } from "./providerContract.js";
import type { Sites } from "./providerContract.js";
import { startFixtureSites } from "../fixtures/fixtureSite.js";

providerContract({
  name: "kernel",
  credentialEnv: "KERNEL_API_KEY",
  start: () => startKernelEmulator(),
  make: (options) => createKernelProvider(options),
  createFault: "create",
  explicitRelease: true,
  endsOnDisconnect: false,
});

describe("kernelTimeoutSeconds", () => {
  it("rounds the budget up to whole seconds and holds it to Kernel's 10..259200", () => {
    assert.equal(kernelTimeoutSeconds(0), 10);
    assert.equal(kernelTimeoutSeconds(3_000), 10);
    assert.equal(kernelTimeoutSeconds(10_001), 11);
    assert.equal(kernelTimeoutSeconds(25_000), 25);
    assert.equal(kernelTimeoutSeconds(259_200_000), 259_200);
    assert.equal(kernelTimeoutSeconds(10 ** 12), 259_200);
  });
});

describe("kernel adapter, wire details", () => {
  let sites: Sites;
  let emulator: ProviderEmulator;
  before(async () => {
    sites = await startFixtureSites();
    emulator = await startKernelEmulator();
  });
  after(async () => {
    await emulator.close();
    await sites.close();
  });

  it("creates a headless browser with Bearer auth, a budget-sized timeout_seconds, a unique name, and deletes it by id", async () => {
    const { receipt } = await runOn(
      createKernelProvider({ env: emulator.env }),
      sites,
      makeTask({ target: { url: `${sites.site.origin}/` }, timeouts: { taskMs: 9_000 }, steps: [{ action: "expect_url", url: `${sites.site.origin}/` }] }),
    );
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
    const create = emulator.core.requests.find((r) => r.method === "POST" && r.path === "/browsers");
    assert.ok(create !== undefined);
    assert.equal(create.headers.authorization, `Bearer ${emulator.env["KERNEL_API_KEY"]}`);
    const body = JSON.parse(create.body) as Record<string, unknown>;
    assert.equal(body["headless"], true);
    assert.equal(body["timeout_seconds"], 10, "a 9 s budget rounds up to Kernel's minimum");
    assert.match(String(body["name"]), /^errand-[0-9a-f-]{36}$/);
    const deleted = emulator.core.requests.filter((r) => r.method === "DELETE");
    assert.equal(deleted.length, 1);
    assert.match(deleted[0]?.path ?? "", /^\/browsers\/kb_/);
    assert.deepEqual(await emulator.core.settled(), []);
  });

  it("keeps the default cleanup bound at 5 s: a hung delete is abandoned after about 5 s", async () => {
    assert.equal(CLEANUP_BOUND_MS, 5_000);
    emulator.core.inject("release", { hang: true }, 3);
    const session = await createKernelProvider({ env: emulator.env }).openSession({ budgetMs: 10_000, signal: new AbortController().signal });
    const began = Date.now();
    await session.release();
    const took = Date.now() - began;
    assert.ok(took >= 4_500 && took < 6_000, `release took ${took} ms`);
    for (const leaked of emulator.core.live()) await emulator.core.endSession(leaked, "timeout");
  });
});
