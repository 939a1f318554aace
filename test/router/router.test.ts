// The provider router end to end: real adapters and SDKs against the loopback emulators (each
// session a real Chromium), the real executor and guards, the real SQLite provider store.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { MINUTE, SECOND } from "../../src/config/units.js";
import { admitTask } from "../../src/executor/admitTask.js";
import { createExecutor } from "../../src/executor/createExecutor.js";
import type { AttemptContext, AttemptOutcome, ExecuteTask } from "../../src/executor/executeTaskTypes.js";
import { createBrowserbaseProvider } from "../../src/providers/browserbaseProvider.js";
import { createBrowserlessProvider } from "../../src/providers/browserlessProvider.js";
import { createKernelProvider } from "../../src/providers/kernelProvider.js";
import { createLocalProvider } from "../../src/providers/local/localProvider.js";
import type { BrowserProvider } from "../../src/providers/providerTypes.js";
import { createSteelProvider } from "../../src/providers/steelProvider.js";
import { createRouter } from "../../src/router/createRouter.js";
import { listProviderStatuses } from "../../src/router/gatherFacts.js";
import { resolveRoutingConfig } from "../../src/router/routingConfig.js";
import type { RoutableProvider } from "../../src/router/routingConfig.js";
import type { ProviderStore } from "../../src/store/ProviderStore.js";
import { openSqliteProviderStore } from "../../src/store/sqlite/openSqliteProviderStore.js";
import type { Task } from "../../src/task/taskTypes.js";
import { memoryVault } from "../executor/memoryVault.js";
import { loopbackGuard } from "../executor/loopbackGuard.js";
import { startFixtureSites } from "../fixtures/fixtureSite.js";
import { startBrowserbaseEmulator } from "../fixtures/providerEmulators/browserbaseEmulator.js";
import { startBrowserlessEmulator } from "../fixtures/providerEmulators/browserlessEmulator.js";
import { startKernelEmulator } from "../fixtures/providerEmulators/kernelEmulator.js";
import type { ProviderEmulator } from "../fixtures/providerEmulators/providerEmulator.js";
import { startSteelEmulator } from "../fixtures/providerEmulators/steelEmulator.js";
import { openHarness } from "../operations/support/harness.js";
import type { Harness } from "../operations/support/harness.js";
import { attemptContext, makeTask } from "../providers/providerContract.js";
import type { Sites } from "../providers/providerContract.js";

type Cloud = Exclude<RoutableProvider, "local">;
let sites: Sites;
const emulators = {} as Record<Cloud, ProviderEmulator>;

before(async () => {
  sites = await startFixtureSites();
  [emulators.kernel, emulators.browserless, emulators.browserbase, emulators.steel] = await Promise.all([
    startKernelEmulator(),
    startBrowserlessEmulator(),
    startBrowserbaseEmulator(),
    startSteelEmulator(),
  ]);
});
after(async () => {
  await Promise.all(Object.values(emulators).map((e) => e.close()));
  await sites.close();
});

interface Bench {
  h: Harness;
  store: ProviderStore;
  execute: ExecuteTask;
  providers: Record<RoutableProvider, BrowserProvider>;
  routing: ReturnType<typeof resolveRoutingConfig>;
  run(task: Task, context?: Partial<AttemptContext>): Promise<AttemptOutcome>;
  close(): Promise<void>;
}

/** A router over the emulators of `configured` (the others have no credential), with `verified` already smoked. */
async function bench(options: { configured: Cloud[]; verified?: Cloud[]; env?: Record<string, string>; localEnv?: Record<string, string> }): Promise<Bench> {
  const h = await openHarness();
  const env: Record<string, string> = { ...options.env };
  for (const name of options.configured) Object.assign(env, emulators[name].env);
  const store = openSqliteProviderStore({ path: h.dbPath, sealer: h.sealer, busyTimeoutMs: 1000 });
  for (const name of options.verified ?? []) await store.recordSmoke({ provider: name, operationId: "smoke", status: "PASS", errorCode: null });
  const cloud = { env, startTimeoutMs: 8_000 };
  const providers: Record<RoutableProvider, BrowserProvider> = {
    local: createLocalProvider({ env: options.localEnv ?? {} }),
    kernel: createKernelProvider(cloud),
    browserless: createBrowserlessProvider(cloud),
    browserbase: createBrowserbaseProvider(cloud),
    steel: createSteelProvider(cloud),
  };
  const routing = resolveRoutingConfig(env);
  const execute = createRouter({
    store,
    config: routing,
    providers,
    admit: (task) => admitTask(task, { guard: loopbackGuard([sites.site.origin]), secrets: memoryVault() }),
    executorFor: (provider) =>
      createExecutor({
        provider,
        guard: loopbackGuard([sites.site.origin]),
        secrets: memoryVault(),
        defaultTaskTimeoutMs: 15_000,
        defaultStepTimeoutMs: 3_000,
      }),
    defaultTaskTimeoutMs: 15_000,
    breaker: { threshold: 3, cooldownMs: 15 * MINUTE, probeTimeoutMs: MINUTE },
    holder: "router-test",
  });
  return {
    h,
    store,
    execute,
    providers,
    routing,
    run: (task, context = {}) => execute(task, attemptContext(context)),
    async close() {
      await store.close();
      await h.close();
    },
  };
}

const readTask = (partial: Record<string, unknown> = {}) =>
  makeTask({
    target: { url: `${sites.site.origin}/` },
    timeouts: { taskMs: 12_000 },
    steps: [{ action: "expect_text", text: "Fixture Home", selector: "#title", match: "exact" }],
    ...partial,
  });
const creates = () => Object.fromEntries(Object.entries(emulators).map(([name, e]) => [name, e.createRequests()])) as Record<Cloud, number>;
const since = (before: Record<Cloud, number>) =>
  Object.fromEntries(Object.entries(creates()).map(([name, n]) => [name, n - before[name as Cloud]])) as Record<Cloud, number>;
const route = (outcome: AttemptOutcome) => outcome.receipt.fallback.map((r) => `${r.provider}:${r.outcome}${r.code === undefined ? "" : `:${r.code}`}`);

describe("the provider router against the emulators", () => {
  test("read_only falls back to the next provider after provider_unavailable, within the same attempt", async () => {
    const b = await bench({ configured: ["kernel", "browserless"], verified: ["kernel", "browserless"] });
    try {
      const before = creates();
      emulators.kernel.core.inject("create", { status: 500, body: { code: "internal", message: "boom" } });
      const outcome = await b.run(readTask());
      assert.equal(outcome.receipt.status, "PASS", JSON.stringify(outcome.receipt.error));
      assert.equal(outcome.receipt.provider, "browserless");
      assert.deepEqual(route(outcome), ["kernel:failed:provider_unavailable", "browserless:used"]);
      assert.equal(outcome.receipt.attempts, 1);
      assert.deepEqual(since(before), { kernel: 1, browserless: 1, browserbase: 0, steel: 0 });
      assert.equal((await b.store.readBreaker("kernel")).failures, 1, "the failure counts against kernel's breaker");
      assert.equal((await b.store.readBreaker("browserless")).failures, 0);
      const usage = await b.store.readUsage("browserless", 0);
      assert.equal(usage.sessions, 1, "the session's usage is booked");
      assert.equal(usage.amount, 1, "one 30 s unit");
      assert.equal(usage.liveSlots, 0, "the slot was released");
      const kernelUsage = await b.store.readUsage("kernel", 0);
      assert.equal(kernelUsage.sessions, 1, "an unclear create (500) is booked: it may have started a browser");
      assert.deepEqual(await emulators.kernel.core.settled(), []);
      assert.deepEqual(await emulators.browserless.core.settled(), []);
    } finally {
      await b.close();
    }
  });

  test("a write never falls back: provider_unavailable before its boundary is BLOCKED, and the next provider is never asked", async () => {
    const b = await bench({ configured: ["kernel", "browserless"], verified: ["kernel", "browserless"] });
    try {
      const before = creates();
      emulators.kernel.core.inject("create", { status: 503, body: { code: "unavailable", message: "down" } });
      const write = makeTask({
        target: { url: `${sites.site.origin}/form` },
        risk: "reversible_write",
        approved: true,
        timeouts: { taskMs: 12_000 },
        steps: [
          { action: "fill", selector: "#name", value: "Ada" },
          { action: "expect_text", text: "x" },
        ],
      });
      const outcome = await b.run(write);
      assert.equal(outcome.receipt.status, "BLOCKED");
      assert.equal(outcome.receipt.error?.code, "provider_unavailable");
      assert.equal(outcome.receipt.mutationBoundary, "not_crossed");
      assert.deepEqual(route(outcome), ["kernel:used:provider_unavailable"]);
      assert.deepEqual(since(before), { kernel: 1, browserless: 0, browserbase: 0, steel: 0 });
    } finally {
      await b.close();
    }
  });

  test("a write whose browser is lost after its boundary is UNCERTAIN and is not moved to another provider", async () => {
    const b = await bench({ configured: ["kernel", "browserless"], verified: ["kernel", "browserless"] });
    try {
      const before = creates();
      let crossed = 0;
      const write = makeTask({
        target: { url: `${sites.site.origin}/form` },
        risk: "reversible_write",
        approved: true,
        timeouts: { taskMs: 12_000 },
        steps: [
          { action: "fill", selector: "#name", value: "Ada" },
          { action: "wait_for", selector: "#never", timeoutMs: 8_000 },
        ],
      });
      const outcome = await b.run(write, {
        beforeMutationBoundary: () => {
          crossed += 1;
          setTimeout(() => void emulators.kernel.core.drop({ crash: true }), 300);
          return Promise.resolve();
        },
      });
      assert.equal(crossed, 1);
      assert.equal(outcome.receipt.status, "UNCERTAIN");
      assert.equal(outcome.receipt.error?.code, "provider_unavailable");
      assert.deepEqual(route(outcome), ["kernel:used:provider_unavailable"]);
      assert.deepEqual(since(before), { kernel: 1, browserless: 0, browserbase: 0, steel: 0 }, "the write ran on one session of one provider");
    } finally {
      await b.close();
    }
  });

  test("a pinned task never falls back, even to a verified provider after provider_unavailable", async () => {
    const b = await bench({ configured: ["kernel", "browserless"], verified: ["browserless"] });
    try {
      const before = creates();
      emulators.kernel.core.inject("create", { status: 500, body: { code: "internal", message: "boom" } });
      const outcome = await b.run(readTask({ provider: "kernel" }));
      assert.equal(outcome.receipt.status, "FAIL");
      assert.equal(outcome.receipt.error?.code, "provider_unavailable");
      assert.equal(outcome.receipt.provider, "kernel");
      assert.deepEqual(route(outcome), ["kernel:used:provider_unavailable"]);
      assert.deepEqual(since(before), { kernel: 1, browserless: 0, browserbase: 0, steel: 0 });

      // Pinned to an unverified provider is allowed (that is how a smoke reaches it); it PASSes there.
      const again = await b.run(readTask({ provider: "kernel" }));
      assert.equal(again.receipt.status, "PASS", JSON.stringify(again.receipt.error));
      assert.equal(again.receipt.provider, "kernel");
    } finally {
      await b.close();
    }
  });

  test("a 429 starts a back-off: later tasks skip that provider until Retry-After, naming it in fallback", async () => {
    const b = await bench({ configured: ["kernel", "browserless"], verified: ["kernel", "browserless"] });
    try {
      const before = creates();
      emulators.kernel.core.inject("create", {
        status: 429,
        headers: { "retry-after": "30" },
        body: { code: "rate_limited", message: "too many concurrent sessions" },
      });
      const asked = Date.now();
      const first = await b.run(readTask());
      const answered = Date.now();
      assert.equal(first.receipt.status, "PASS", JSON.stringify(first.receipt.error));
      assert.deepEqual(route(first), ["kernel:failed:provider_capacity", "browserless:used"]);
      const state = await b.store.readProviderState("kernel");
      // Retry-After counts from the 429, which came between asking and the (slower) fallback's answer.
      const until = state.backoffUntilMs ?? 0;
      assert.ok(
        until >= asked + 30 * SECOND && until <= answered + 30 * SECOND,
        `back-off until ${until - asked} ms after asking; the run took ${answered - asked} ms`,
      );
      assert.equal((await b.store.readBreaker("kernel")).failures, 0, "a 429 is not a health failure");

      const second = await b.run(readTask());
      assert.equal(second.receipt.status, "PASS");
      assert.deepEqual(route(second), ["kernel:skipped:provider_capacity", "browserless:used"]);
      assert.match(second.receipt.fallback[0]?.reason?.text ?? "", /answered 429 \(Retry-After 30 s\); errand leaves it alone until/);
      assert.deepEqual(since(before), { kernel: 1, browserless: 2, browserbase: 0, steel: 0 }, "kernel was not asked again during its back-off");
      assert.equal((await b.store.readUsage("kernel", 0)).sessions, 0, "a clear 429 refusal books no usage");
    } finally {
      await b.close();
    }
  });

  test("unconfigured, circuit-open and over-budget providers are skipped and named in fallback; the next usable one runs the task", async () => {
    const b = await bench({
      configured: ["browserless", "browserbase", "steel"],
      verified: ["browserless", "browserbase", "steel"],
      env: { ERRAND_BUDGET_BROWSERBASE_MINUTES: "0" },
    });
    try {
      const before = creates();
      const breaker = await b.store.readBreaker("browserless");
      await b.store.writeBreaker({ ...breaker, state: "OPEN", failures: 3, openUntilMs: Date.now() + 15 * MINUTE }, breaker.revision);
      const outcome = await b.run(readTask());
      assert.equal(outcome.receipt.status, "PASS", JSON.stringify(outcome.receipt.error));
      assert.equal(outcome.receipt.provider, "steel");
      assert.deepEqual(route(outcome), [
        "kernel:skipped:provider_unconfigured",
        "browserless:skipped:circuit_open",
        "browserbase:skipped:budget_exhausted",
        "steel:used",
      ]);
      const reasons = outcome.receipt.fallback.map((r) => r.reason?.text ?? "");
      assert.match(reasons[0] ?? "", /KERNEL_API_KEY/);
      assert.match(reasons[1] ?? "", /consecutive provider failures/);
      assert.match(reasons[2] ?? "", /0 of 0 browser_minute this month/);
      assert.deepEqual(since(before), { kernel: 0, browserless: 0, browserbase: 0, steel: 1 });

      const states = Object.fromEntries((await listProviderStatuses(b.store, b.routing, b.providers, 15_000)).map((s) => [s.name, s]));
      assert.equal(states["kernel"]?.state, "UNCONFIGURED");
      assert.equal(states["browserless"]?.state, "CIRCUIT_OPEN");
      assert.ok(states["browserless"]?.until !== null);
      assert.equal(states["browserbase"]?.state, "BUDGET_EXHAUSTED");
      assert.equal(states["steel"]?.state, "OPERATIONAL");
    } finally {
      await b.close();
    }
  });

  test("budget refusal: once another session could pass the cap, the provider is refused with budget_exhausted before any create", async () => {
    // 12 s budget + 15 s grace: each session may cost one 30 s unit; the cap is 2 units.
    // No Chromium: auto routing would otherwise end on local Chromium once browserless is over budget.
    const b = await bench({
      configured: ["browserless"],
      verified: ["browserless"],
      env: { ERRAND_BUDGET_BROWSERLESS_UNITS: "2" },
      localEnv: { CHROME_PATH: "/nonexistent/chromium" },
    });
    try {
      const before = creates();
      for (let i = 0; i < 2; i += 1) assert.equal((await b.run(readTask({ provider: "browserless" }))).receipt.status, "PASS");
      assert.equal((await b.store.readUsage("browserless", 0)).amount, 2);
      const refused = await b.run(readTask({ provider: "browserless" }));
      assert.equal(refused.receipt.status, "BLOCKED");
      assert.equal(refused.receipt.error?.code, "budget_exhausted");
      assert.match(refused.receipt.error?.message ?? "", /pinned to browserless .* used 2 of 2 browserless_unit this month/);
      assert.deepEqual(route(refused), ["browserless:skipped:budget_exhausted"]);
      const auto = await b.run(readTask());
      assert.equal(auto.receipt.error?.code, "budget_exhausted", "auto routing has nowhere else to go");
      assert.deepEqual(since(before), { kernel: 0, browserless: 2, browserbase: 0, steel: 0 }, "no session was started past the cap");
    } finally {
      await b.close();
    }
  });

  test("a refused credential un-verifies the provider without opening its circuit; auto routing then passes over it", async () => {
    const b = await bench({ configured: ["kernel", "browserless"], verified: ["kernel", "browserless"] });
    try {
      emulators.kernel.core.inject("create", { status: 401, body: { code: "unauthorized", message: "Invalid or missing API key" } });
      const refused = await b.run(readTask());
      assert.equal(refused.receipt.status, "BLOCKED");
      assert.equal(refused.receipt.error?.code, "provider_auth_failed");
      assert.deepEqual(route(refused), ["kernel:used:provider_auth_failed"], "a configuration problem is shown, not hidden by a fallback");
      assert.equal((await b.store.readBreaker("kernel")).failures, 0);
      const state = await b.store.readProviderState("kernel");
      assert.equal(state.verifiedMs, null);
      assert.match(state.authReason ?? "", /Invalid or missing API key/);
      const next = await b.run(readTask());
      assert.equal(next.receipt.status, "PASS", JSON.stringify(next.receipt.error));
      assert.deepEqual(route(next), ["kernel:skipped:provider_unverified", "browserless:used"]);
    } finally {
      await b.close();
    }
  });

  test("with no cloud credential set, auto runs on the local provider and asks no cloud provider", async () => {
    const b = await bench({ configured: [] });
    try {
      const before = creates();
      const outcome = await b.run(readTask());
      assert.equal(outcome.receipt.status, "PASS", JSON.stringify(outcome.receipt.error));
      assert.equal(outcome.receipt.provider, "local");
      assert.deepEqual(route(outcome), ["local:used"]);
      assert.deepEqual(since(before), { kernel: 0, browserless: 0, browserbase: 0, steel: 0 });
    } finally {
      await b.providers.local.shutdown();
      await b.close();
    }
  });

  test("a cloud credential set but not yet verified does not block auto tasks: they end on local, and the receipt's fallback says why each provider was skipped", async () => {
    const b = await bench({ configured: ["kernel"], verified: [] });
    try {
      const before = creates();
      const outcome = await b.run(readTask());
      assert.equal(outcome.receipt.status, "PASS", JSON.stringify(outcome.receipt.error));
      assert.equal(outcome.receipt.provider, "local");
      assert.deepEqual(route(outcome), [
        "kernel:skipped:provider_unverified",
        "browserless:skipped:provider_unconfigured",
        "browserbase:skipped:provider_unconfigured",
        "steel:skipped:provider_unconfigured",
        "local:used",
      ]);
      assert.match(outcome.receipt.fallback[0]?.reason?.text ?? "", /errand provider smoke kernel/);
      assert.deepEqual(since(before), { kernel: 0, browserless: 0, browserbase: 0, steel: 0 });
    } finally {
      await b.providers.local.shutdown();
      await b.close();
    }
  });

  test("when no provider can take a task, a refusal the executor gives before any browser still comes first", async () => {
    // No Chromium here, so auto routing cannot end on local either.
    const b = await bench({ configured: ["kernel"], verified: [], localEnv: { CHROME_PATH: "/nonexistent/chromium" } });
    try {
      // As errand run does for an unapproved task: the executor's own refusal, on a copy that keeps approved false.
      const unapprovedTask = {
        ...makeTask({ target: { url: `${sites.site.origin}/form` }, risk: "consequential", approved: true, steps: [{ action: "click", selector: "#submit" }] }),
        approved: false,
      };
      const unapproved = await b.run(unapprovedTask);
      assert.equal(unapproved.receipt.error?.code, "approval_required", "the missing approval, not the provider, is what to fix first");
      const nowhere = await b.run(readTask());
      assert.equal(nowhere.receipt.status, "BLOCKED");
      assert.equal(nowhere.receipt.error?.code, "provider_unverified");
      assert.match(nowhere.receipt.error?.message ?? "", /errand provider smoke kernel/);
      assert.equal(nowhere.receipt.provider, "none");
    } finally {
      await b.close();
    }
  });
});
