// errand_status and GET /v1/status share statusReport: its budget answer must say what the router
// does and list the caps the router reads (its own routing configuration and usage), not a claim.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { BUDGETS_ENFORCED, statusReport } from "../../../src/interfaces/http/operationActions.js";
import { usageAgainstCaps } from "../../../src/router/gatherFacts.js";
import { resolveRoutingConfig } from "../../../src/router/routingConfig.js";
import type { ProviderStore } from "../../../src/store/ProviderStore.js";
import { openSqliteProviderStore } from "../../../src/store/sqlite/openSqliteProviderStore.js";
import { openAppHarness } from "./support/appHarness.js";
import type { AppHarness } from "./support/appHarness.js";

describe("status: budget caps as the router enforces them", () => {
  const env = { ERRAND_BUDGET_KERNEL_USD: "3" };
  let h: AppHarness;
  let store: ProviderStore | undefined;
  before(async () => {
    h = await openAppHarness({ extraDeps: { budgets: () => usageAgainstCaps(store as ProviderStore, resolveRoutingConfig(env)) } });
    store = openSqliteProviderStore({ path: h.ops.dbPath, sealer: h.ops.sealer, busyTimeoutMs: 1000 });
  });
  after(async () => {
    await store?.close();
    await h?.close();
  });

  test("the answer states enforcement and lists every cap of the router's configuration with its use", async () => {
    const budgets = (await statusReport(h.deps))["budgets"] as {
      enforced: boolean;
      note: string;
      caps: { provider: string; limit: number; unit: string; period: string }[];
    };
    assert.equal(budgets.enforced, true);
    assert.equal(budgets.note, BUDGETS_ENFORCED);
    assert.doesNotMatch(JSON.stringify(budgets), /not (tracked|enforced)/i);
    const routing = resolveRoutingConfig(env);
    assert.deepEqual(budgets.caps.map((c) => c.provider).sort(), Object.keys(routing.budgets).sort());
    for (const cap of budgets.caps) {
      const configured = routing.budgets[cap.provider as keyof typeof routing.budgets];
      assert.deepEqual([cap.limit, cap.unit, cap.period], [configured.limit, configured.unit, configured.period], cap.provider);
    }
    assert.deepEqual(budgets.caps, await usageAgainstCaps(store as ProviderStore, routing));
  });
});
