// A live runner keeps its lease while it is slow, and one whose lease ran out before it could renew
// it stops before the mutation boundary and says so. In one process, on a real SQLite file; "another
// runner" is a second connection looking for expired leases.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, test } from "node:test";
import type { ExecuteTask } from "../../src/executor/executeTaskTypes.js";
import { decideExpiredLease } from "../../src/runner/decideExpiredLease.js";
import { runQueue } from "../../src/runner/runQueue.js";
import type { RunnerDeps, RunnerEvent } from "../../src/runner/runnerTypes.js";
import { openSqliteStore } from "../../src/store/sqlite/openSqliteStore.js";
import type { Store } from "../../src/store/Store.js";
import { createFakeExecutor } from "../operations/support/fakeExecutor.js";
import type { Harness } from "../operations/support/harness.js";
import { REVERSIBLE_WRITES_UNATTENDED, manualClock, openHarness } from "../operations/support/harness.js";
import { readTask, writeTask } from "../operations/support/tasks.js";

// Long enough that a loaded machine's event-loop stall (a CI beside Chromium) is not taken for a
// runner that stopped renewing; every wait below is a multiple of it.
const LEASE_MS = 1500;

/** The runner's dependencies over `store` (the harness's own, or a wrapper of it). */
function runnerDeps(h: Harness, store: Store, execute: ExecuteTask, events: RunnerEvent[], extra: Partial<RunnerDeps> = {}): RunnerDeps {
  return {
    store,
    execute,
    digestKey: h.key,
    config: { ...h.config, leaseMs: LEASE_MS, heartbeatMs: LEASE_MS / 3, cancelPollMs: 100 },
    runnerId: "slow-runner",
    onEvent: (event) => events.push(event),
    ...extra,
  };
}

/** `store` with one method replaced. */
function withMethod<K extends keyof Store>(store: Store, name: K, replacement: Store[K]): Store {
  return new Proxy(store, {
    get(target, prop) {
      if (prop === name) return replacement;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** Looks for expired leases as another runner would, until `done` settles; returns what it recovered. */
async function watchForExpiredLeases(h: Harness, done: Promise<unknown>): Promise<string[]> {
  const other = openSqliteStore({ path: h.dbPath, sealer: h.sealer, busyTimeoutMs: 1000 });
  const recovered: string[] = [];
  let settled = false;
  void done.finally(() => (settled = true));
  try {
    while (!settled) {
      const now = new Date(await other.now());
      const batch = await other.recoverExpiredLeases((expired) => decideExpiredLease(expired, now), 10);
      recovered.push(...batch.map((r) => r.operationId));
      await sleep(50);
    }
  } finally {
    await other.close();
  }
  return recovered;
}

describe("leases under load", () => {
  test("a renewal that falls due while a slow cancel poll is in flight goes when the poll returns, never a heartbeat later: a long attempt keeps its lease", async () => {
    const h = await openHarness();
    const fake = createFakeExecutor();
    const events: RunnerEvent[] = [];
    try {
      const id = randomUUID();
      assert.ok((await h.service.submit(readTask(id))).ok);
      // Each poll takes most of the time between two: a renewal that waited a whole heartbeat more
      // whenever a poll was in flight would miss three in a row; one that waits for the poll does not.
      const leaseMs = 1500;
      const slowPoll = withMethod(h.store, "checkLease", async (lease) => {
        await sleep(400);
        return h.store.checkLease(lease);
      });
      const long: ExecuteTask = async (task, context) => {
        await sleep(3 * leaseMs);
        return fake.execute(task, context);
      };
      const running = runQueue(runnerDeps(h, slowPoll, long, events, { config: { ...h.config, leaseMs, heartbeatMs: leaseMs / 3, cancelPollMs: 70 } }));
      const recovered = await watchForExpiredLeases(h, running);
      const report = await running;
      assert.deepEqual(recovered, [], "no live lease was recovered");
      assert.deepEqual(
        report.attempts.map((a) => [a.attempt, a.outcome, a.status]),
        [[1, "finished", "PASS"]],
      );
      assert.equal(fake.calls.length, 1);
    } finally {
      await h.close();
    }
  });

  test("the lease is still renewed while a finished attempt's outcome is being kept: it is resolved once, by its runner", async () => {
    const h = await openHarness();
    const fake = createFakeExecutor();
    const events: RunnerEvent[] = [];
    try {
      const id = randomUUID();
      assert.ok((await h.service.submit(readTask(id, "extract", { evidenceRetention: "full" }))).ok);
      const slowHold = async (): Promise<void> => sleep(3 * LEASE_MS);
      const running = runQueue(runnerDeps(h, h.store, fake.execute, events, { holdResult: slowHold }));
      const recovered = await watchForExpiredLeases(h, running);
      const report = await running;
      assert.deepEqual(recovered, [], "no live lease was recovered");
      assert.deepEqual(
        report.attempts.map((a) => [a.attempt, a.outcome, a.status]),
        [[1, "finished", "PASS"]],
      );
      assert.equal(fake.calls.length, 1);
    } finally {
      await h.close();
    }
  });

  test("a write whose lease ran out before its runner renewed it (nobody recovered it yet) is refused at the boundary: nothing sent, BLOCKED, and the reason says the runner was alive", async () => {
    const clock = manualClock();
    const h = await openHarness({ clock: clock.now, config: REVERSIBLE_WRITES_UNATTENDED });
    const events: RunnerEvent[] = [];
    let sent = 0;
    try {
      const id = randomUUID();
      assert.ok((await h.service.submit(writeTask(id))).ok);
      const starved: ExecuteTask = async (task, context) => {
        // The process was stopped longer than the lease; on resuming it goes straight for the boundary.
        clock.advance(LEASE_MS + 1);
        const fake = createFakeExecutor();
        const outcome = await fake.execute(task, {
          ...context,
          beforeMutationBoundary: async () => {
            await context.beforeMutationBoundary();
            sent += 1;
          },
        });
        return outcome;
      };
      const report = await runQueue(runnerDeps(h, h.store, starved, events));
      assert.equal(sent, 0, "the write was not sent");
      assert.deepEqual(report.recovered, []);
      assert.deepEqual(
        report.attempts.map((a) => [a.outcome, a.phase, a.status]),
        [["lease_lost", "blocked", "BLOCKED"]],
      );
      assert.deepEqual(
        events.filter((e) => e.kind === "lease_lost"),
        [{ kind: "lease_lost", operationId: id, attempt: 1, loss: "expired", phase: "blocked" }],
      );
      const collected = await h.service.collect(id);
      assert.ok(collected.ok);
      assert.equal(collected.receipt?.status, "BLOCKED");
      assert.equal(collected.receipt?.mutationBoundary, "not_crossed");
      assert.equal(collected.receipt?.error?.code, "lease_expired");
      assert.match(collected.receipt?.error?.message ?? "", /was alive, but its lease ran out before it could renew it/);
      assert.doesNotMatch(collected.receipt?.error?.message ?? "", /vanish|crashed/);
      assert.ok((await h.service.verifyJournal()).ok);
    } finally {
      await h.close();
    }
  });

  test("a read whose lease ran out while its runner was stalled: the renewal is refused, the runner stops it and requeues it itself, and the next attempt completes it once", async () => {
    const clock = manualClock();
    const h = await openHarness({ clock: clock.now });
    const events: RunnerEvent[] = [];
    const fake = createFakeExecutor();
    try {
      const id = randomUUID();
      assert.ok((await h.service.submit(readTask(id))).ok);
      const stalled: ExecuteTask = async (task, context) => {
        if (context.attempt === 1) {
          clock.advance(LEASE_MS + 1);
          // Bounded, so a runner that never notices fails the test instead of hanging it.
          const noticed = await Promise.race([
            new Promise<true>((resolve) => context.signal.addEventListener("abort", () => resolve(true), { once: true })),
            sleep(10 * LEASE_MS).then(() => false),
          ]);
          assert.ok(noticed, "the runner noticed its lease ran out");
          assert.match(String((context.signal.reason as Error).message), /lease ran out before it could renew it/);
          return fake.execute({ ...task, label: "hang" }, { ...context, signal: AbortSignal.abort() });
        }
        return fake.execute(task, context);
      };
      const report = await runQueue(runnerDeps(h, h.store, stalled, events));
      assert.deepEqual(report.recovered, [], "the runner ended its own attempt; no recovery took it");
      assert.deepEqual(
        report.attempts.map((a) => [a.attempt, a.outcome, a.phase]),
        [
          [1, "lease_lost", "queued"],
          [2, "finished", "completed"],
        ],
      );
      assert.deepEqual(
        events.filter((e) => e.kind === "lease_lost"),
        [{ kind: "lease_lost", operationId: id, attempt: 1, loss: "expired", phase: "queued" }],
      );
      const inspected = await h.service.inspect(id);
      assert.ok(inspected.ok && "attempts" in inspected);
      assert.deepEqual(
        inspected.attempts.map((a) => a.outcome),
        ["lost", "PASS"],
      );
    } finally {
      await h.close();
    }
  });
});
