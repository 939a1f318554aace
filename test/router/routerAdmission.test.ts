// The router's admission step: the task is admitted once, before any provider is chosen; a refusal
// never reaches an executor, a slot or a breaker, and still comes before "no provider could take
// it"; an admitted task carries that one admission to every executor it reaches.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";
import { MINUTE } from "../../src/config/units.js";
import { admitTask } from "../../src/executor/admitTask.js";
import type { Admission } from "../../src/executor/admitTask.js";
import type { AttemptContext, ExecuteTask } from "../../src/executor/executeTaskTypes.js";
import type { BrowserProvider } from "../../src/providers/providerTypes.js";
import { createRouter } from "../../src/router/createRouter.js";
import { resolveRoutingConfig } from "../../src/router/routingConfig.js";
import type { RoutableProvider } from "../../src/router/routingConfig.js";
import type { ProviderStore } from "../../src/store/ProviderStore.js";
import { openSqliteProviderStore } from "../../src/store/sqlite/openSqliteProviderStore.js";
import type { Task } from "../../src/task/taskTypes.js";
import { validateTask } from "../../src/task/validateTask.js";
import { loopbackGuard } from "../executor/loopbackGuard.js";
import { memoryVault } from "../executor/memoryVault.js";
import { createFakeExecutor } from "../operations/support/fakeExecutor.js";
import { openHarness } from "../operations/support/harness.js";

const SITE = "https://shop.example";

function makeTask(partial: Record<string, unknown> = {}): Task {
  const result = validateTask({
    schemaVersion: "errand.task.v1",
    operationId: randomUUID(),
    risk: "read_only",
    target: { url: `${SITE}/` },
    steps: [{ action: "expect_text", text: "Shop" }],
    ...partial,
  });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.value;
}
const unapprovedWrite = (): Task => ({
  ...makeTask({ risk: "consequential", approved: true, steps: [{ action: "click", selector: "#buy" }] }),
  approved: false,
});

interface Bench {
  execute: ExecuteTask;
  store: ProviderStore;
  /** Each executor run: the provider it was built for and the admission it was handed. */
  runs: { provider: string; admitted: AttemptContext["admitted"] }[];
  admissions: Admission[];
  close(): Promise<void>;
}

/**
 * A router over stand-in providers: `configured` cloud providers have a credential, `verified` ones
 * passed their smoke, local has Chromium unless `noChromium`. Executors are the label-driven fake;
 * `failOn` answers provider_unavailable there.
 */
async function bench(
  options: { configured?: RoutableProvider[]; verified?: RoutableProvider[]; noChromium?: boolean; failOn?: RoutableProvider } = {},
): Promise<Bench> {
  const h = await openHarness();
  const store = openSqliteProviderStore({ path: h.dbPath, sealer: h.sealer, busyTimeoutMs: 1_000 });
  for (const name of options.verified ?? []) await store.recordSmoke({ provider: name, operationId: "smoke", status: "PASS", errorCode: null });
  const provider = (name: RoutableProvider): BrowserProvider => ({
    name,
    kind: name === "local" ? "local" : "cloud",
    missingConfiguration: () =>
      name === "local"
        ? options.noChromium === true
          ? "no Chromium in this test"
          : null
        : (options.configured ?? []).includes(name)
          ? null
          : `no ${name} credential in this test`,
    openSession: () => Promise.reject(new Error("the fake executor opens no session")),
    shutdown: () => Promise.resolve(),
  });
  const runs: Bench["runs"] = [];
  const admissions: Admission[] = [];
  const execute = createRouter({
    store,
    config: resolveRoutingConfig({}),
    providers: {
      local: provider("local"),
      kernel: provider("kernel"),
      browserless: provider("browserless"),
      browserbase: provider("browserbase"),
      steel: provider("steel"),
    },
    admit: async (task) => {
      const admission = await admitTask(task, { guard: loopbackGuard([SITE]), secrets: memoryVault() });
      admissions.push(admission);
      return admission;
    },
    executorFor: (chosen) => (task, context) => {
      runs.push({ provider: chosen.name, admitted: context.admitted });
      return createFakeExecutor({ provider: chosen.name }).execute(chosen.name === options.failOn ? { ...task, label: "provider-down" } : task, context);
    },
    defaultTaskTimeoutMs: 15_000,
    breaker: { threshold: 3, cooldownMs: 15 * MINUTE, probeTimeoutMs: MINUTE },
    holder: "admission-test",
  });
  return {
    execute,
    store,
    runs,
    admissions,
    async close() {
      await store.close();
      await h.close();
    },
  };
}

const context = (): AttemptContext => ({
  requestDigest: "hmac-sha256:test",
  attempt: 1,
  signal: new AbortController().signal,
  beforeMutationBoundary: () => Promise.resolve(),
});
const route = (fallback: { provider: string; outcome: string; code?: string }[]) =>
  fallback.map((r) => `${r.provider}:${r.outcome}${r.code === undefined ? "" : `:${r.code}`}`);

describe("the router's admission step", () => {
  test("no provider can take the task and its approval is missing: approval_required, and no executor runs", async () => {
    const b = await bench({ configured: ["kernel"], noChromium: true });
    try {
      const { receipt } = await b.execute(unapprovedWrite(), context());
      assert.equal(receipt.status, "BLOCKED");
      assert.equal(receipt.error?.code, "approval_required", "the missing approval, not the providers, is what to fix first");
      assert.equal(receipt.provider, "none");
      assert.deepEqual(receipt.fallback, [], "no provider was considered");
      assert.ok(receipt.steps.every((s) => s.status === "skipped"));
      assert.deepEqual(b.runs, [], "no executor ran, not even against a provider that opens nothing");
    } finally {
      await b.close();
    }
  });

  test("no provider can take the task and its target is refused: the preflight's code, with the target's verdict as evidence", async () => {
    const b = await bench({ configured: ["kernel"], noChromium: true });
    try {
      const { receipt } = await b.execute(makeTask({ target: { url: "https://elsewhere.example/" } }), context());
      assert.equal(receipt.error?.code, "ip_blocked");
      assert.deepEqual(
        receipt.network.preflight.map((v) => `${v.host}:${v.verdict}`),
        ["elsewhere.example:block"],
      );
      assert.deepEqual(b.runs, []);
    } finally {
      await b.close();
    }
  });

  test("an admitted task no provider can take: the most telling skip's code, every provider's reason, the admission's evidence, and no executor", async () => {
    const b = await bench({ configured: ["kernel"], noChromium: true });
    try {
      const { receipt } = await b.execute(makeTask({ evidence: { screenshots: "on_failure" } }), context());
      assert.equal(receipt.status, "BLOCKED");
      assert.equal(receipt.error?.code, "provider_unverified");
      assert.match(
        receipt.error?.message ?? "",
        /^No provider could take this task, so nothing was run\. kernel: .*errand provider smoke kernel.* local: no Chromium in this test$/,
      );
      assert.equal(receipt.provider, "none");
      assert.deepEqual(route(receipt.fallback), [
        "kernel:skipped:provider_unverified",
        "browserless:skipped:provider_unconfigured",
        "browserbase:skipped:provider_unconfigured",
        "steel:skipped:provider_unconfigured",
        "local:skipped:provider_unconfigured",
      ]);
      assert.deepEqual(
        receipt.network.preflight.map((v) => `${v.host}:${v.verdict}`),
        ["shop.example:allow"],
        "the admission's preflight is the receipt's evidence",
      );
      assert.ok(receipt.steps.length === 1 && receipt.steps.every((s) => s.status === "skipped"));
      assert.equal(receipt.artifactsOmitted, "The attempt was refused before any browser opened; there was no page to capture.");
      assert.deepEqual(b.runs, [], "nothing ran");
    } finally {
      await b.close();
    }
  });

  test("a task pinned to a provider and refused by admission names that provider, as a pinned task with nowhere to run does", async () => {
    const b = await bench({ noChromium: true });
    try {
      const refused = await b.execute({ ...unapprovedWrite(), provider: "kernel" }, context());
      assert.equal(refused.receipt.error?.code, "approval_required");
      assert.equal(refused.receipt.provider, "kernel");
      assert.deepEqual(b.runs, []);
    } finally {
      await b.close();
    }
  });

  test("a refusal with providers available takes no slot, touches no breaker and runs no executor", async () => {
    const b = await bench({ configured: ["kernel"], verified: ["kernel"] });
    try {
      const { receipt } = await b.execute(unapprovedWrite(), context());
      assert.equal(receipt.error?.code, "approval_required");
      assert.deepEqual(b.runs, []);
      assert.equal((await b.store.readUsage("kernel", 0)).liveSlots, 0);
      assert.equal((await b.store.readBreaker("kernel")).revision, 0, "the breaker was not consulted");
    } finally {
      await b.close();
    }
  });

  test("an admitted task is admitted once per attempt: every executor it reaches, fallback included, gets that admission", async () => {
    const b = await bench({ configured: ["kernel"], verified: ["kernel"], failOn: "kernel" });
    try {
      const { receipt } = await b.execute(makeTask(), context());
      assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
      assert.deepEqual(route(receipt.fallback), [
        "kernel:failed:provider_unavailable",
        "browserless:skipped:provider_unconfigured",
        "browserbase:skipped:provider_unconfigured",
        "steel:skipped:provider_unconfigured",
        "local:used",
      ]);
      assert.equal(b.admissions.length, 1, "one admission for the attempt");
      assert.deepEqual(
        b.runs.map((r) => r.provider),
        ["kernel", "local"],
      );
      assert.ok(
        b.runs.every((r) => r.admitted !== undefined && r.admitted === b.admissions[0]),
        "the executors received the router's admission instead of deciding again",
      );
    } finally {
      await b.close();
    }
  });
});
