import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createExecutor } from "../../src/executor/createExecutor.js";
import { createLocalProvider } from "../../src/providers/local/localProvider.js";
import type { BrowserProvider, ProviderSession } from "../../src/providers/providerTypes.js";
import { startFixtureSites } from "../fixtures/fixtureSite.js";
import { makeContext, makeTask } from "./attemptSupport.js";
import { loopbackGuard } from "./loopbackGuard.js";
import { memoryVault } from "./memoryVault.js";

const LOST = "The provider ended the browser connection during the task.";

/**
 * A real local session whose provider "ends" it 300 ms in, while Playwright's newPage is still
 * pending and never settles: what a cloud browser dropped during page set-up looks like (seen with
 * Browserless when its session timeout fired mid-attempt: the attempt then hung for its whole budget).
 */
function losingProvider(base: BrowserProvider): BrowserProvider {
  return {
    ...base,
    async openSession(open): Promise<ProviderSession> {
      // Without the blank page the local provider opens ahead, so the executor calls newPage itself.
      const session: ProviderSession = { ...(await base.openSession(open)) };
      delete session.page;
      let lost: string | null = null;
      const whenLost = new Promise<string>((resolve) =>
        setTimeout(() => {
          lost = LOST;
          resolve(LOST);
        }, 300),
      );
      const context = new Proxy(session.context, {
        get: (target, key, receiver): unknown => (key === "newPage" ? () => new Promise<never>(() => undefined) : Reflect.get(target, key, receiver)),
      });
      return { ...session, context, whenLost, lostReason: () => lost };
    },
  };
}

describe("a provider session lost while a browser call is pending", () => {
  let sites: Awaited<ReturnType<typeof startFixtureSites>>;
  const local = createLocalProvider({ env: process.env });
  before(async () => {
    sites = await startFixtureSites();
  });
  after(async () => {
    await local.shutdown();
    await sites.close();
  });

  it("ends the attempt as provider_unavailable moments after the loss, not at the task's budget", async () => {
    const execute = createExecutor({
      provider: losingProvider(local),
      guard: loopbackGuard([sites.site.origin]),
      secrets: memoryVault(),
      defaultTaskTimeoutMs: 20_000,
      defaultStepTimeoutMs: 3_000,
    });
    const { receipt } = await execute(
      makeTask({ target: { url: `${sites.site.origin}/` }, steps: [{ action: "expect_url", url: `${sites.site.origin}/` }] }),
      makeContext(),
    );
    assert.equal(receipt.status, "FAIL");
    assert.equal(receipt.error?.code, "provider_unavailable");
    assert.equal(receipt.error?.message, LOST);
    assert.ok(receipt.durationMs < 10_000, `took ${receipt.durationMs} ms of a 20 s budget`);
  });
});
