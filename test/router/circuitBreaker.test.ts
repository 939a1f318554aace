// The per-provider circuit breaker: the pure state machine, its persistence with compare-and-set,
// and its effect on operations through the router, the breaker's only home (open after 3 provider
// failures, 15 min cooldown, one half-open probe); the runner alone keeps none.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";
import { MINUTE } from "../../src/config/units.js";
import type { RuntimeConfig } from "../../src/config/runtimeConfig.js";
import type { ExecuteTask } from "../../src/executor/executeTaskTypes.js";
import type { BrowserProvider, OpenSessionOptions, ProviderSession } from "../../src/providers/providerTypes.js";
import { admit, breakerPolicy, recordOutcome } from "../../src/router/circuitBreaker.js";
import type { BreakerPolicy } from "../../src/router/circuitBreaker.js";
import { admitTask } from "../../src/executor/admitTask.js";
import { createRouter } from "../../src/router/createRouter.js";
import { resolveRoutingConfig } from "../../src/router/routingConfig.js";
import type { RoutableProvider } from "../../src/router/routingConfig.js";
import type { ProviderStore } from "../../src/store/ProviderStore.js";
import { openSqliteProviderStore } from "../../src/store/sqlite/openSqliteProviderStore.js";
import type { BreakerRecord } from "../../src/store/Store.js";
import { loopbackGuard } from "../executor/loopbackGuard.js";
import { memoryVault } from "../executor/memoryVault.js";
import { createFakeExecutor } from "../operations/support/fakeExecutor.js";
import { manualClock, openHarness } from "../operations/support/harness.js";
import type { Harness } from "../operations/support/harness.js";
import { readTask } from "../operations/support/tasks.js";

const policy: BreakerPolicy = { threshold: 3, cooldownMs: 15 * MINUTE, probeTimeoutMs: 2 * MINUTE };
const closed: BreakerRecord = {
  provider: "local",
  state: "CLOSED",
  failures: 0,
  openUntilMs: null,
  probeToken: null,
  probeExpiresMs: null,
  revision: 0,
  updatedMs: 0,
};

describe("circuit breaker state machine", () => {
  test("CLOSED counts consecutive provider failures and opens at the threshold for the cooldown", () => {
    let record = closed;
    for (let i = 1; i <= 2; i += 1) {
      record = recordOutcome(record, "provider_failure", 1000, policy, null) ?? record;
      assert.equal(record.state, "CLOSED");
      assert.equal(record.failures, i);
    }
    const opened = recordOutcome(record, "provider_failure", 1000, policy, null);
    assert.equal(opened?.state, "OPEN");
    assert.equal(opened?.openUntilMs, 1000 + 15 * MINUTE);
  });

  test("a success resets the count; a neutral outcome (configuration error) leaves it", () => {
    const two = { ...closed, failures: 2 };
    assert.equal(recordOutcome(two, "neutral", 0, policy, null), null);
    assert.equal(recordOutcome(two, "success", 0, policy, null)?.failures, 0);
    assert.equal(recordOutcome(closed, "success", 0, policy, null), null, "nothing to write");
  });

  test("OPEN refuses until the cooldown ends, then admits exactly one probe as HALF_OPEN", () => {
    const open: BreakerRecord = { ...closed, state: "OPEN", failures: 3, openUntilMs: 10_000 };
    assert.deepEqual(admit(open, 9_999, policy, "p1"), { kind: "refuse", retryAtMs: 10_000 });
    const probe = admit(open, 10_000, policy, "p1");
    assert.equal(probe.kind, "probe");
    assert.ok(probe.kind === "probe");
    assert.equal(probe.next.state, "HALF_OPEN");
    assert.equal(probe.next.probeToken, "p1");
    assert.deepEqual(admit(probe.next, 10_001, policy, "p2"), { kind: "refuse", retryAtMs: null }, "a second probe is refused while the first is live");
    const replaced = admit(probe.next, 10_000 + policy.probeTimeoutMs, policy, "p3");
    assert.ok(replaced.kind === "probe", "an abandoned probe is replaced");
    assert.equal(replaced.next.probeToken, "p3");
  });

  test("HALF_OPEN closes on the probe's success, reopens on its failure, and releases it on a neutral outcome", () => {
    const half: BreakerRecord = { ...closed, state: "HALF_OPEN", failures: 3, openUntilMs: 0, probeToken: "p", probeExpiresMs: 99_999 };
    assert.equal(recordOutcome(half, "success", 5, policy, "p")?.state, "CLOSED");
    const reopened = recordOutcome(half, "provider_failure", 5, policy, "p");
    assert.equal(reopened?.state, "OPEN");
    assert.equal(reopened?.openUntilMs, 5 + 15 * MINUTE);
    const released = recordOutcome(half, "neutral", 5, policy, "p");
    assert.equal(released?.state, "OPEN");
    assert.equal(released?.openUntilMs, 5, "the next admit may probe at once");
    assert.equal(recordOutcome(half, "success", 5, policy, "someone-else"), null, "only the probe's own outcome counts");
    assert.equal(recordOutcome(half, "success", 5, policy, null), null);
  });

  test("outcomes of attempts admitted before the circuit opened do not move an OPEN circuit", () => {
    const open: BreakerRecord = { ...closed, state: "OPEN", failures: 3, openUntilMs: 10 };
    for (const outcome of ["success", "provider_failure", "neutral"] as const) assert.equal(recordOutcome(open, outcome, 0, policy, null), null);
  });
});

/**
 * The router (the only breaker) over a fake local provider whose attempts the fake executor plays;
 * the clouds have no credential. As the real executor does, each attempt first opens a session, so
 * the router's refusal path (no provider could take the task) is told that nothing may run.
 * `sessions` counts the attempts that really ran.
 */
async function routedHarness(options: { clock?: () => number; config?: Partial<RuntimeConfig> } = {}): Promise<{
  h: Harness;
  sessions: () => number;
  providers: ProviderStore;
}> {
  const fake = createFakeExecutor();
  let sessions = 0;
  const late: { route?: ExecuteTask } = {};
  const h = await openHarness({ execute: (task, context) => (late.route as ExecuteTask)(task, context), ...options });
  const providers = openSqliteProviderStore({
    path: h.dbPath,
    sealer: h.sealer,
    busyTimeoutMs: 1_000,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  const provider = (name: RoutableProvider): BrowserProvider => ({
    name,
    kind: name === "local" ? "local" : "cloud",
    missingConfiguration: () => (name === "local" ? null : "no credential in this test"),
    openSession: () =>
      name === "local"
        ? Promise.resolve({ provider: "local", sessionId: "fake", release: () => Promise.resolve() } as unknown as ProviderSession)
        : Promise.reject(new Error("no credential")),
    shutdown: () => Promise.resolve(),
  });
  late.route = createRouter({
    store: providers,
    config: resolveRoutingConfig({}),
    providers: {
      local: provider("local"),
      kernel: provider("kernel"),
      browserless: provider("browserless"),
      browserbase: provider("browserbase"),
      steel: provider("steel"),
    },
    // The real admission step; the tasks' target is reachable under this stand-in policy.
    admit: (task) => admitTask(task, { guard: loopbackGuard(["https://example.com"]), secrets: memoryVault() }),
    executorFor: (chosen) => async (task, context) => {
      const opened = await chosen.openSession({} as OpenSessionOptions).then(
        (session) => session.release().then(() => true),
        () => false,
      );
      if (opened) sessions += 1;
      return fake.execute(opened ? task : { ...task, label: "config" }, context);
    },
    defaultTaskTimeoutMs: 15_000,
    breaker: breakerPolicy(h.config),
    holder: "breaker-test",
  });
  return { h, sessions: () => sessions, providers };
}

describe("circuit breaker in the router, through the queue", () => {
  test("three provider failures open the circuit; later operations are BLOCKED circuit_open without running; after 15 min one probe closes it", async () => {
    const clock = manualClock();
    const { h, sessions, providers } = await routedHarness({ clock: clock.now, config: { maxAttempts: 1 } });
    try {
      for (let i = 0; i < 3; i += 1) await h.service.submit(readTask(randomUUID(), "provider-down"));
      await h.service.runQueue();
      const breaker = await providers.readBreaker("local");
      assert.equal(breaker.state, "OPEN");
      assert.equal(breaker.openUntilMs, clock.now() + 15 * MINUTE);

      const refused = randomUUID();
      await h.service.submit(readTask(refused));
      await h.service.runQueue();
      assert.equal(sessions(), 3, "nothing ran while the circuit was open");
      const blocked = await h.service.collect(refused);
      assert.ok(blocked.ok);
      assert.equal(blocked.status, "blocked");
      assert.equal(blocked.receipt?.error?.code, "circuit_open");

      clock.advance(15 * MINUTE);
      const probe = randomUUID();
      const waiting = randomUUID();
      await h.service.submit(readTask(probe));
      await h.service.submit(readTask(waiting));
      await h.service.runQueue({ max: 1 });
      assert.equal((await providers.readBreaker("local")).state, "CLOSED", "the probe succeeded");
      await h.service.runQueue();
      const after = await h.service.collect(waiting);
      assert.ok(after.ok);
      assert.equal(after.receipt?.status, "PASS");
      const changes = (await h.store.readJournalEvents(0, 1000))
        .filter((e) => e.type === "breaker_changed")
        .map((e) => JSON.parse(e.body ?? "{}") as { from: string; to: string });
      assert.deepEqual(
        changes.map((c) => `${c.from}->${c.to}`),
        ["CLOSED->OPEN", "OPEN->HALF_OPEN", "HALF_OPEN->CLOSED"],
      );
    } finally {
      await providers.close();
      await h.close();
    }
  });

  test("a failed probe reopens the circuit for another cooldown", async () => {
    const clock = manualClock();
    const { h, providers } = await routedHarness({ clock: clock.now, config: { maxAttempts: 1 } });
    try {
      for (let i = 0; i < 3; i += 1) await h.service.submit(readTask(randomUUID(), "provider-down"));
      await h.service.runQueue();
      clock.advance(15 * MINUTE);
      await h.service.submit(readTask(randomUUID(), "provider-down"));
      await h.service.runQueue();
      const breaker = await providers.readBreaker("local");
      assert.equal(breaker.state, "OPEN");
      assert.equal(breaker.openUntilMs, clock.now() + 15 * MINUTE);
    } finally {
      await providers.close();
      await h.close();
    }
  });

  test("configuration errors (BLOCKED) never open the circuit", async () => {
    const { h, sessions, providers } = await routedHarness();
    try {
      for (let i = 0; i < 5; i += 1) await h.service.submit(readTask(randomUUID(), "config"));
      await h.service.runQueue();
      assert.equal((await providers.readBreaker("local")).state, "CLOSED");
      assert.equal(sessions(), 5);
    } finally {
      await providers.close();
      await h.close();
    }
  });

  test("the runner alone keeps no breaker: provider failures through a plain executor leave every breaker row untouched", async () => {
    const fake = createFakeExecutor();
    const h = await openHarness({ execute: fake.execute, config: { maxAttempts: 1 } });
    try {
      for (let i = 0; i < 4; i += 1) await h.service.submit(readTask(randomUUID(), "provider-down"));
      await h.service.runQueue();
      assert.equal(fake.calls.length, 4, "every operation ran: no gate outside the router");
      assert.deepEqual(await h.store.listBreakers(), []);
    } finally {
      await h.close();
    }
  });
});

describe("breaker rows", () => {
  test("the breaker row is compare-and-set: of two runners racing for the half-open probe, one wins", async () => {
    const h = await openHarness();
    const other = await h.reopen();
    try {
      const open: BreakerRecord = { ...closed, state: "OPEN", failures: 3, openUntilMs: 0 };
      assert.equal(await h.store.writeBreaker(open, 0), true);
      const seen = await h.store.readBreaker("local");
      const a = admit(seen, Date.now(), policy, "a");
      const b = admit(seen, Date.now(), policy, "b");
      assert.ok(a.kind === "probe" && b.kind === "probe");
      const results = await Promise.all([h.store.writeBreaker(a.next, seen.revision), other.store.writeBreaker(b.next, seen.revision)]);
      assert.deepEqual(results.sort(), [false, true]);
    } finally {
      await h.close();
    }
  });
});
