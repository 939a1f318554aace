// control(cancel) in every phase, and its idempotency by controlActionId.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";
import type { ExecuteTask } from "../../src/executor/executeTaskTypes.js";
import { createFakeExecutor } from "./support/fakeExecutor.js";
import { REVERSIBLE_WRITES_UNATTENDED, openHarness } from "./support/harness.js";
import { readTask, writeTask } from "./support/tasks.js";

/** An executor that signals when it starts and waits for the test before each move. */
function steppedExecutor(plan: { crossFirst: boolean }) {
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  let go!: () => void;
  const proceed = new Promise<void>((resolve) => (go = resolve));
  const writes: string[] = [];
  const fake = createFakeExecutor();
  let aborted = false;
  const execute: ExecuteTask = async (task, context) => {
    context.signal.addEventListener("abort", () => (aborted = true));
    if (plan.crossFirst) await context.beforeMutationBoundary();
    started();
    await proceed;
    if (!plan.crossFirst) {
      try {
        await context.beforeMutationBoundary();
      } catch {
        return fake
          .execute({ ...task, label: "write-fail-before" }, context)
          .then((o) => ({ ...o, receipt: { ...o.receipt, status: "CANCELLED", error: { code: "cancelled", message: "stopped", step: null } } }));
      }
    }
    writes.push(task.operationId);
    return fake.execute({ ...task, label: "pass" }, context);
  };
  return { execute, running, go: () => go(), writes, wasAborted: () => aborted };
}

describe("control: cancel", () => {
  test("a queued operation is cancelled at once with a CANCELLED receipt and is never run", async () => {
    const fake = createFakeExecutor();
    const h = await openHarness({ execute: fake.execute });
    try {
      const id = randomUUID();
      await h.service.submit(readTask(id));
      const result = await h.service.control(id, { action: "cancel", controlActionId: randomUUID() });
      assert.ok(result.ok);
      assert.equal(result.outcome, "cancelled");
      assert.equal(result.status, "cancelled");
      assert.equal(result.handle.phase, "cancelled");
      await h.service.runQueue();
      assert.equal(fake.calls.length, 0);
      const collected = await h.service.collect(id);
      assert.ok(collected.ok);
      assert.equal(collected.receipt?.status, "CANCELLED");
      assert.equal(
        collected.receipt?.steps.every((s) => s.status === "skipped"),
        true,
      );
    } finally {
      await h.close();
    }
  });

  test("a running write before its boundary is stopped, and the boundary can no longer be crossed", async () => {
    const stepped = steppedExecutor({ crossFirst: false });
    const h = await openHarness({ execute: stepped.execute, config: { ...REVERSIBLE_WRITES_UNATTENDED, cancelPollMs: 50 } });
    try {
      const id = randomUUID();
      await h.service.submit(writeTask(id));
      const run = h.service.runQueue();
      await stepped.running;
      const result = await h.service.control(id, { action: "cancel", controlActionId: randomUUID() });
      assert.ok(result.ok);
      assert.equal(result.outcome, "cancel_requested");
      assert.equal(result.status, "pending");
      stepped.go();
      await run;
      assert.deepEqual(stepped.writes, [], "no write was dispatched after the cancel");
      const collected = await h.service.collect(id);
      assert.ok(collected.ok);
      assert.equal(collected.status, "cancelled");
      assert.equal(collected.receipt?.mutationBoundary, "not_crossed");
    } finally {
      stepped.go();
      await h.close();
    }
  });

  test("a running read is stopped through its abort signal and is not retried", async () => {
    const fake = createFakeExecutor();
    const h = await openHarness({ execute: fake.execute, config: { cancelPollMs: 50 } });
    try {
      const id = randomUUID();
      await h.service.submit(readTask(id, "hang"));
      const run = h.service.runQueue();
      while (fake.calls.length === 0) await new Promise((r) => setTimeout(r, 10));
      const result = await h.service.control(id, { action: "cancel", controlActionId: randomUUID() });
      assert.ok(result.ok && result.outcome === "cancel_requested");
      await run;
      assert.equal(fake.calls.length, 1);
      const collected = await h.service.collect(id);
      assert.ok(collected.ok);
      assert.equal(collected.status, "cancelled");
    } finally {
      await h.close();
    }
  });

  test("a running write past its boundary is reported uncertain and left to finish", async () => {
    const stepped = steppedExecutor({ crossFirst: true });
    const h = await openHarness({ execute: stepped.execute, config: { ...REVERSIBLE_WRITES_UNATTENDED, cancelPollMs: 50 } });
    try {
      const id = randomUUID();
      await h.service.submit(writeTask(id));
      const run = h.service.runQueue();
      await stepped.running;
      const result = await h.service.control(id, { action: "cancel", controlActionId: randomUUID() });
      assert.ok(result.ok);
      assert.equal(result.outcome, "uncertain");
      assert.equal(result.handle.mutationBoundary, "crossed");
      await new Promise((r) => setTimeout(r, 150));
      stepped.go();
      await run;
      assert.equal(stepped.wasAborted(), false, "the write was not interrupted");
      const collected = await h.service.collect(id);
      assert.ok(collected.ok);
      assert.equal(collected.receipt?.status, "PASS");
    } finally {
      stepped.go();
      await h.close();
    }
  });

  test("a finished operation is left as it is", async () => {
    const fake = createFakeExecutor();
    const h = await openHarness({ config: REVERSIBLE_WRITES_UNATTENDED, execute: fake.execute });
    try {
      const id = randomUUID();
      await h.service.submit(readTask(id));
      await h.service.runQueue();
      const result = await h.service.control(id, { action: "cancel", controlActionId: randomUUID() });
      assert.ok(result.ok);
      assert.equal(result.outcome, "already_terminal");
      assert.equal(result.status, "completed");
    } finally {
      await h.close();
    }
  });

  test("a repeated controlActionId returns the first outcome and acts no more; reusing it elsewhere is identity_mismatch", async () => {
    const h = await openHarness({ config: REVERSIBLE_WRITES_UNATTENDED });
    try {
      const id = randomUUID();
      const controlActionId = randomUUID();
      await h.service.submit(readTask(id));
      const first = await h.service.control(id, { action: "cancel", controlActionId });
      const seqAfterFirst = (await h.service.status()).journal.seq;
      const second = await h.service.control(id, { action: "cancel", controlActionId });
      assert.ok(first.ok && second.ok);
      assert.equal(second.outcome, first.outcome);
      assert.equal(second.repeated, true);
      assert.deepEqual(second.handle, first.handle);
      assert.equal((await h.service.status()).journal.seq, seqAfterFirst, "nothing new was journaled");

      const other = randomUUID();
      await h.service.submit(readTask(other));
      const reused = await h.service.control(other, { action: "cancel", controlActionId });
      assert.ok(!reused.ok);
      assert.equal(reused.code, "identity_mismatch");
      const unknown = await h.service.control(randomUUID(), { action: "cancel", controlActionId: randomUUID() });
      assert.ok(!unknown.ok);
      assert.equal(unknown.code, "operation_not_found");
    } finally {
      await h.close();
    }
  });
});
