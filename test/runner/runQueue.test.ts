// The runner in one process: retry rules, the write rules, lease fencing, lease recovery, heartbeats.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, test } from "node:test";
import type { ExecuteTask } from "../../src/executor/executeTaskTypes.js";
import { openSqliteStore } from "../../src/store/sqlite/openSqliteStore.js";
import { SECOND } from "../../src/config/units.js";
import { createFakeExecutor } from "../operations/support/fakeExecutor.js";
import { manualClock, openHarness, REVERSIBLE_WRITES_UNATTENDED } from "../operations/support/harness.js";
import { readTask, writeTask } from "../operations/support/tasks.js";

async function receiptOf(h: Awaited<ReturnType<typeof openHarness>>, id: string) {
  const collected = await h.service.collect(id);
  assert.ok(collected.ok, JSON.stringify(collected));
  return collected;
}

describe("runQueue: retry and write rules", () => {
  test("a read_only failure is retried once after the retry delay, and the receipt counts both attempts", async () => {
    const clock = manualClock();
    const fake = createFakeExecutor();
    const h = await openHarness({ execute: fake.execute, clock: clock.now, config: { ...REVERSIBLE_WRITES_UNATTENDED, retryDelayMs: 10 * SECOND } });
    try {
      const id = randomUUID();
      await h.service.submit(readTask(id, "fail-once"));
      const first = await h.service.runQueue();
      assert.deepEqual(
        first.attempts.map((a) => a.outcome),
        ["requeued"],
      );
      const waiting = await h.service.inspect(id);
      assert.ok(waiting.ok && waiting.status === "pending" && "operation" in waiting);
      assert.equal(waiting.operation.runAfter, new Date(clock.now() + 10 * SECOND).toISOString());

      clock.advance(9 * SECOND);
      assert.equal((await h.service.runQueue()).attempts.length, 0, "not eligible before the delay");
      clock.advance(1 * SECOND);
      const second = await h.service.runQueue();
      assert.deepEqual(
        second.attempts.map((a) => [a.attempt, a.status]),
        [[2, "PASS"]],
      );
      const { receipt } = await receiptOf(h, id);
      assert.equal(receipt?.status, "PASS");
      assert.equal(receipt?.attempts, 2);
      assert.equal(fake.calls.length, 2);
    } finally {
      await h.close();
    }
  });

  test("a read_only task that keeps failing for a reason a retry can fix stops after max attempts with FAIL, and says why it stopped", async () => {
    const fake = createFakeExecutor();
    const h = await openHarness({ execute: fake.execute, config: REVERSIBLE_WRITES_UNATTENDED });
    try {
      const id = randomUUID();
      await h.service.submit(readTask(id, "provider-down"));
      await h.service.runQueue();
      const { status, receipt } = await receiptOf(h, id);
      assert.equal(status, "completed");
      assert.equal(receipt?.status, "FAIL");
      assert.equal(receipt?.attempts, 2);
      assert.equal(receipt?.retry?.decision, "final");
      assert.match(receipt?.retry?.reason ?? "", /all 2 attempts are used/);
      assert.equal(fake.calls.length, 2);
    } finally {
      await h.close();
    }
  });

  test("a read_only expectation that failed on a loaded page is final at once: one attempt, retry.decision final", async () => {
    const fake = createFakeExecutor();
    const h = await openHarness({ execute: fake.execute, config: REVERSIBLE_WRITES_UNATTENDED });
    try {
      const id = randomUUID();
      await h.service.submit(readTask(id, "fail"));
      const run = await h.service.runQueue();
      assert.deepEqual(
        run.attempts.map((a) => a.outcome),
        ["finished"],
      );
      const { receipt } = await receiptOf(h, id);
      assert.equal(receipt?.status, "FAIL");
      assert.equal(receipt?.attempts, 1);
      assert.deepEqual(receipt?.retry?.decision, "final");
      assert.match(receipt?.retry?.reason ?? "", /expectation did not hold/);
      assert.equal(fake.calls.length, 1);
    } finally {
      await h.close();
    }
  });
  test("a write that fails before its boundary ends BLOCKED and is never retried", async () => {
    const fake = createFakeExecutor();
    const h = await openHarness({ execute: fake.execute, config: REVERSIBLE_WRITES_UNATTENDED });
    try {
      const id = randomUUID();
      await h.service.submit(writeTask(id, "write-fail-before"));
      await h.service.runQueue();
      const { status, receipt, handle } = await receiptOf(h, id);
      assert.equal(status, "blocked");
      assert.equal(receipt?.status, "BLOCKED");
      assert.equal(handle.mutationBoundary, "not_crossed");
      assert.equal(fake.calls.length, 1);
    } finally {
      await h.close();
    }
  });

  test("a write that fails after its boundary ends UNCERTAIN and is never retried", async () => {
    const fake = createFakeExecutor();
    const h = await openHarness({ execute: fake.execute, config: REVERSIBLE_WRITES_UNATTENDED });
    try {
      const id = randomUUID();
      await h.service.submit(writeTask(id, "write-fail-after"));
      await h.service.runQueue();
      const { status, receipt, handle } = await receiptOf(h, id);
      assert.equal(status, "uncertain");
      assert.equal(receipt?.status, "UNCERTAIN");
      assert.equal(handle.mutationBoundary, "crossed");
      assert.equal(fake.calls.length, 1);
    } finally {
      await h.close();
    }
  });

  test("a write whose expectation fails after it ran to the end is a FAIL, not retried", async () => {
    const fake = createFakeExecutor();
    const h = await openHarness({ execute: fake.execute, config: REVERSIBLE_WRITES_UNATTENDED });
    try {
      const id = randomUUID();
      await h.service.submit(writeTask(id, "fail"));
      await h.service.runQueue();
      const { receipt } = await receiptOf(h, id);
      assert.equal(receipt?.status, "FAIL");
      assert.equal(fake.calls.length, 1);
    } finally {
      await h.close();
    }
  });

  test("an executor that throws instead of returning yields a receipt (internal_error), never a stuck operation", async () => {
    const fake = createFakeExecutor();
    const h = await openHarness({ execute: fake.execute, config: REVERSIBLE_WRITES_UNATTENDED });
    try {
      const readId = randomUUID();
      const writeId = randomUUID();
      await h.service.submit(readTask(readId, "throw"));
      await h.service.submit(writeTask(writeId, "throw"));
      await h.service.runQueue();
      const read = await receiptOf(h, readId);
      assert.equal(read.receipt?.status, "FAIL");
      assert.equal(read.receipt?.error?.code, "internal_error");
      const write = await receiptOf(h, writeId);
      assert.equal(write.receipt?.status, "BLOCKED", "the write threw before its boundary");
    } finally {
      await h.close();
    }
  });

  test("runQueue stops at max and at the budget, and leaves the rest queued", async () => {
    const fake = createFakeExecutor();
    const h = await openHarness({ execute: fake.execute, config: REVERSIBLE_WRITES_UNATTENDED });
    try {
      for (let i = 0; i < 5; i += 1) await h.service.submit(readTask());
      const limited = await h.service.runQueue({ max: 2 });
      assert.equal(limited.stoppedBecause, "max");
      assert.equal(limited.attempts.length, 2);
      const budget = await h.service.runQueue({ budgetMs: 0 });
      assert.equal(budget.stoppedBecause, "budget");
      assert.equal(budget.attempts.length, 0);
      const rest = await h.service.runQueue();
      assert.equal(rest.stoppedBecause, "drained");
      assert.equal(rest.attempts.length, 3);
    } finally {
      await h.close();
    }
  });

  test("a stored task edited behind errand's back is not run: BLOCKED journal_tampered", async () => {
    const fake = createFakeExecutor();
    const h = await openHarness({ execute: fake.execute, config: REVERSIBLE_WRITES_UNATTENDED });
    try {
      const id = randomUUID();
      await h.service.submit(readTask(id));
      const { openSqliteDatabase } = await import("../../src/store/sqlite/sqliteBinding.js");
      const db = openSqliteDatabase(h.dbPath);
      db.prepare("UPDATE operations SET task_json = replace(task_json, 'example.com', 'evil.example') WHERE operation_id = ?").run(id);
      db.close();
      await h.service.runQueue();
      assert.equal(fake.calls.length, 0);
      const { receipt } = await receiptOf(h, id);
      assert.equal(receipt?.status, "BLOCKED");
      assert.equal(receipt?.error?.code, "journal_tampered");
    } finally {
      await h.close();
    }
  });
});

describe("leases: fencing and recovery", () => {
  test("a runner that lost its lease can neither cross the boundary, renew, nor finish; the new owner can", async () => {
    const clock = manualClock();
    const h = await openHarness({ clock: clock.now, config: REVERSIBLE_WRITES_UNATTENDED });
    try {
      const id = randomUUID();
      await h.service.submit(writeTask(id));
      const zombie = await h.store.claimNext("zombie", 1000);
      assert.ok(zombie !== undefined);
      clock.advance(1001);
      const recovered = await h.store.recoverExpiredLeases(
        () => ({ kind: "requeue", delayMs: 0, attemptOutcome: "lost", errorCode: "lease_expired", provider: null, reason: "test" }),
        10,
      );
      assert.equal(recovered.length, 1);
      const owner = await h.store.claimNext("owner", 1000);
      assert.ok(owner !== undefined);
      assert.equal(owner.attempt, 2);
      assert.notEqual(owner.lease.token, zombie.lease.token);

      assert.equal(await h.store.crossMutationBoundary(zombie.lease), "lease_lost");
      assert.deepEqual(await h.store.renewLease(zombie.lease, 1000), { held: false, cancelRequested: false });
      let resolved = false;
      const zombieFinish = await h.store.finishAttempt(zombie.lease, () => {
        resolved = true;
        throw new Error("never asked");
      });
      assert.equal(zombieFinish.applied, undefined);
      assert.equal(resolved, false);

      assert.equal(await h.store.crossMutationBoundary(owner.lease), "crossed");
      const inspected = await h.service.inspect(id);
      assert.ok(inspected.ok && "operation" in inspected);
      assert.equal(inspected.operation.leaseOwner, "owner");
      assert.equal(inspected.handle.mutationBoundary, "crossed");
    } finally {
      await h.close();
    }
  });

  test("an expired read_only lease goes back to the queue, counts as an attempt, and the operation completes once", async () => {
    const clock = manualClock();
    const fake = createFakeExecutor();
    const h = await openHarness({ execute: fake.execute, clock: clock.now, config: REVERSIBLE_WRITES_UNATTENDED });
    try {
      const id = randomUUID();
      await h.service.submit(readTask(id));
      assert.ok((await h.store.claimNext("crashed", h.config.leaseMs)) !== undefined);
      assert.equal((await h.service.runQueue()).attempts.length, 0, "a live lease is left alone");
      clock.advance(h.config.leaseMs + 1);
      const run = await h.service.runQueue();
      assert.deepEqual(
        run.recovered.map((r) => [r.operationId, r.resolution]),
        [[id, "requeue"]],
      );
      assert.deepEqual(
        run.attempts.map((a) => [a.attempt, a.status]),
        [[2, "PASS"]],
      );
      const inspected = await h.service.inspect(id);
      assert.ok(inspected.ok && "attempts" in inspected);
      assert.deepEqual(
        inspected.attempts.map((a) => [a.attempt, a.outcome]),
        [
          [1, "lost"],
          [2, "PASS"],
        ],
      );
    } finally {
      await h.close();
    }
  });

  test("an expired lease on a read_only operation with no attempts left ends FAIL lease_expired", async () => {
    const clock = manualClock();
    const fake = createFakeExecutor();
    const h = await openHarness({ execute: fake.execute, clock: clock.now, config: { ...REVERSIBLE_WRITES_UNATTENDED, maxAttempts: 1 } });
    try {
      const id = randomUUID();
      await h.service.submit(readTask(id));
      await h.store.claimNext("crashed", h.config.leaseMs);
      clock.advance(h.config.leaseMs + 1);
      await h.service.runQueue();
      const { receipt } = await receiptOf(h, id);
      assert.equal(receipt?.status, "FAIL");
      assert.equal(receipt?.error?.code, "lease_expired");
      assert.equal(fake.calls.length, 0);
    } finally {
      await h.close();
    }
  });

  test("an expired lease on a write past its boundary ends UNCERTAIN; before it, BLOCKED; neither is retried", async () => {
    const clock = manualClock();
    const fake = createFakeExecutor();
    const h = await openHarness({ execute: fake.execute, clock: clock.now, config: REVERSIBLE_WRITES_UNATTENDED });
    try {
      const crossed = randomUUID();
      const notCrossed = randomUUID();
      await h.service.submit(writeTask(crossed));
      const claim = await h.store.claimNext("crashed", h.config.leaseMs);
      assert.equal(await h.store.crossMutationBoundary(claim!.lease), "crossed");
      await h.service.submit(writeTask(notCrossed));
      await h.store.claimNext("crashed", h.config.leaseMs);
      clock.advance(h.config.leaseMs + 1);
      await h.service.runQueue();
      assert.equal(fake.calls.length, 0);
      const a = await receiptOf(h, crossed);
      assert.equal(a.status, "uncertain");
      assert.equal(a.receipt?.error?.code, "lease_expired");
      const b = await receiptOf(h, notCrossed);
      assert.equal(b.status, "blocked");
      assert.equal(b.receipt?.mutationBoundary, "not_crossed");
    } finally {
      await h.close();
    }
  });

  test("heartbeats keep a long attempt's lease alive while another runner looks for expired leases", async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const fake = createFakeExecutor();
    const slow: ExecuteTask = async (task, context) => {
      await gate;
      return fake.execute(task, context);
    };
    const h = await openHarness({ execute: slow, config: { ...REVERSIBLE_WRITES_UNATTENDED, leaseMs: 600, cancelPollMs: 100 } });
    try {
      const id = randomUUID();
      await h.service.submit(readTask(id));
      const running = h.service.runQueue();
      const other = openSqliteStore({ path: h.dbPath, sealer: h.sealer, busyTimeoutMs: 1000 });
      try {
        for (let i = 0; i < 8; i += 1) {
          await sleep(200);
          const recovered = await other.recoverExpiredLeases(() => assert.fail("the lease must not expire"), 10);
          assert.equal(recovered.length, 0);
        }
      } finally {
        await other.close();
      }
      release();
      const report = await running;
      assert.deepEqual(
        report.attempts.map((a) => [a.attempt, a.status]),
        [[1, "PASS"]],
      );
    } finally {
      release();
      await h.close();
    }
  });

  test("an executor that overruns is aborted, and one that ignores the abort is abandoned to lease recovery (a write ends UNCERTAIN)", async () => {
    const fake = createFakeExecutor();
    let sawAbort = false;
    const stubborn: ExecuteTask = async (task, context) => {
      context.signal.addEventListener("abort", () => (sawAbort = true));
      if (task.label === "overrun") {
        await new Promise<void>((resolve) => context.signal.addEventListener("abort", () => resolve()));
        return fake.execute({ ...task, label: "hang" }, { ...context, signal: AbortSignal.abort() });
      }
      await context.beforeMutationBoundary();
      return new Promise(() => undefined);
    };
    const h = await openHarness({ execute: stubborn, config: { ...REVERSIBLE_WRITES_UNATTENDED, browserTimeoutMs: 300, leaseMs: 600 } });
    try {
      const overrun = randomUUID();
      const stuck = randomUUID();
      assert.ok((await h.service.submit(readTask(overrun, "overrun", { timeouts: { taskMs: 1000 } }))).ok);
      const first = await h.service.runQueue();
      assert.deepEqual(
        first.attempts.map((a) => [a.outcome, a.status]),
        [
          ["requeued", null],
          ["finished", "FAIL"],
        ],
        "stopped at its budget, failed as a timeout, retried once",
      );
      const timedOut = await h.service.collect(overrun);
      assert.ok(timedOut.ok);
      assert.equal(timedOut.receipt?.error?.code, "timeout", "a stop for time is a timeout, not a cancel");
      assert.equal(sawAbort, true);

      assert.ok((await h.service.submit(writeTask(stuck, "stuck"))).ok);
      const report = await h.service.runQueue();
      assert.deepEqual(
        report.attempts.map((a) => a.outcome),
        ["abandoned"],
      );
      await sleep(700);
      const rescue = await (await h.reopen(fake.execute)).service.runQueue();
      assert.deepEqual(
        rescue.recovered.map((r) => [r.operationId, r.phase]),
        [[stuck, "uncertain"]],
      );
      const collected = await h.service.collect(stuck);
      assert.ok(collected.ok);
      assert.equal(collected.receipt?.status, "UNCERTAIN");
    } finally {
      await h.close();
    }
  });
});
