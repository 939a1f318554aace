// The interval entry's one pass (runDuePass): approvals expired, expired leases recovered, due work
// run, and each claim only when its longest attempt ends within the pass's budget.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import { attemptWorstCaseMs } from "../../src/core/attemptTime.js";
import { runDuePass } from "../../src/operations/runDuePass.js";
import { SECOND } from "../../src/config/units.js";
import { createFakeExecutor } from "./support/fakeExecutor.js";
import { manualClock, openHarness, REVERSIBLE_WRITES_UNATTENDED } from "./support/harness.js";
import { readTask } from "./support/tasks.js";

const SHORT = { timeouts: { taskMs: 1_000 } };

/** The harness. */
const open = (options: Parameters<typeof openHarness>[0]) => openHarness(options);

test("runDuePass recovers an expired lease and runs a due retry, and says what remains", async () => {
  const clock = manualClock();
  const fake = createFakeExecutor();
  const h = await open({ execute: fake.execute, clock: clock.now, config: { ...REVERSIBLE_WRITES_UNATTENDED, retryDelayMs: 10 * SECOND } });
  try {
    const retried = randomUUID();
    await h.service.submit(readTask(retried, "fail-once", SHORT));
    assert.deepEqual(
      (await h.service.runQueue()).attempts.map((a) => a.outcome),
      ["requeued"],
    );
    const crashed = randomUUID();
    await h.service.submit(readTask(crashed, undefined, SHORT));
    assert.ok((await h.store.claimNext("crashed-runner", h.config.leaseMs)) !== undefined);
    const later = randomUUID();
    await h.service.submit(readTask(later, undefined, SHORT));
    clock.advance(h.config.leaseMs + 1);

    const pass = await runDuePass(h.service, { budgetMs: 60 * SECOND });
    assert.deepEqual(
      pass.recovered.map((r) => [r.operationId, r.resolution]),
      [[crashed, "requeue"]],
    );
    assert.deepEqual(
      pass.attempts.map((a) => [a.operationId, a.attempt, a.status]).sort(),
      [
        [crashed, 2, "PASS"],
        [later, 1, "PASS"],
        [retried, 2, "PASS"],
      ].sort(),
    );
    assert.deepEqual(pass.unfit, []);
    assert.equal(pass.stoppedBecause, "drained");
    assert.deepEqual(pass.remaining, { queued: 0, running: 0, delayed: 0, expiredLeases: 0, nextEligibleAt: null });
  } finally {
    await h.close();
  }
});

test("runDuePass claims only what can end within its budget: a longer task is left queued and untouched", async () => {
  const fake = createFakeExecutor();
  const h = await open({ execute: fake.execute, config: REVERSIBLE_WRITES_UNATTENDED });
  try {
    const long = randomUUID();
    const short = randomUUID();
    await h.service.submit(readTask(long, undefined, { timeouts: { taskMs: 60_000 } }));
    await h.service.submit(readTask(short, undefined, SHORT));

    const pass = await runDuePass(h.service, { budgetMs: 10 * SECOND });
    assert.deepEqual(
      pass.attempts.map((a) => a.operationId),
      [short],
    );
    assert.deepEqual(pass.unfit, [{ operationId: long, worstCaseMs: attemptWorstCaseMs(60_000) }]);
    assert.deepEqual(
      fake.calls.map((c) => c.operationId),
      [short],
      "the long task never reached the executor",
    );
    assert.equal(pass.remaining.queued, 1);
    const waiting = await h.service.inspect(long);
    assert.ok(waiting.ok && "operation" in waiting);
    assert.equal(waiting.operation.attempts, 0, "left queued without an attempt counted");

    // No budget: nothing is claimed at all.
    const none = await runDuePass(h.service, { budgetMs: 0 });
    assert.deepEqual(none.attempts, []);
    assert.equal(none.stoppedBecause, "budget");

    // A pass with the time runs it.
    const enough = await runDuePass(h.service, { budgetMs: attemptWorstCaseMs(60_000) + SECOND });
    assert.deepEqual(
      enough.attempts.map((a) => [a.operationId, a.status]),
      [[long, "PASS"]],
    );
  } finally {
    await h.close();
  }
});

test("runDuePass stops claiming before its budget runs out: attempts that take their whole time end within it", async () => {
  const fake = createFakeExecutor();
  // "hang" waits until the runner aborts it, one grace past its 1 s budget; a failed read is retried only after a minute.
  const h = await open({ execute: fake.execute, config: { ...REVERSIBLE_WRITES_UNATTENDED, retryDelayMs: 60 * SECOND } });
  try {
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    for (const id of ids) await h.service.submit(readTask(id, "hang", SHORT));
    const budgetMs = 8 * SECOND;
    const started = Date.now();
    const pass = await runDuePass(h.service, { budgetMs });
    const elapsed = Date.now() - started;
    // Each needs attemptWorstCaseMs(1000) = 6.4 s left when it is claimed, and takes about 1.2 s: the
    // first always fits, the third never does (two attempts have taken 2.4 s of the 8 by then); the
    // second fits on an unloaded machine. Whatever fitted ended within the budget.
    assert.ok(pass.attempts.length >= 1, JSON.stringify(pass));
    assert.ok(pass.unfit.length >= 1, JSON.stringify(pass));
    assert.equal(pass.attempts.length + pass.unfit.length, ids.length);
    assert.ok(elapsed < budgetMs, `the pass took ${elapsed} ms`);
    assert.equal(fake.calls.length, pass.attempts.length);
  } finally {
    await h.close();
  }
});

test("runDuePass: a long task whose stored document was edited to look short is claimed, then refused as tampered, never run", async () => {
  const fake = createFakeExecutor();
  const h = await open({ execute: fake.execute, config: REVERSIBLE_WRITES_UNATTENDED });
  try {
    if (h.location.backend !== "sqlite") return;
    const long = randomUUID();
    await h.service.submit(readTask(long, undefined, { timeouts: { taskMs: 60_000 } }));
    const { openSqliteDatabase } = await import("../../src/store/sqlite/sqliteBinding.js");
    const db = openSqliteDatabase(h.dbPath);
    const edited = db.prepare("UPDATE operations SET task_json = replace(task_json, '60000', '1000') WHERE operation_id = ?").run(long);
    db.close();
    assert.equal(edited.changes, 1, "the stored document now asks for 1 s");

    const pass = await runDuePass(h.service, { budgetMs: 10 * SECOND });
    assert.deepEqual(pass.unfit, [], "the edited budget fits, so the pass claims it");
    assert.equal(fake.calls.length, 0, "the executor never saw it");
    const collected = await h.service.collect(long);
    assert.ok(collected.ok);
    assert.equal(collected.receipt?.status, "BLOCKED");
    assert.equal(collected.receipt?.error?.code, "journal_tampered");
  } finally {
    await h.close();
  }
});

test("a run of tasks too long for the budget at the front of the queue hides no short one behind them (an assistant cannot starve the pass)", async () => {
  const fake = createFakeExecutor();
  const h = await open({ execute: fake.execute, config: REVERSIBLE_WRITES_UNATTENDED });
  try {
    // More long tasks than the pass looks at in one list, all older than the short one.
    const long = { timeouts: { taskMs: 120_000 } };
    for (let i = 0; i < 230; i += 1) assert.ok((await h.service.submit(readTask(randomUUID(), undefined, long))).ok);
    const short = randomUUID();
    await h.service.submit(readTask(short, undefined, SHORT));
    const pass = await runDuePass(h.service, { budgetMs: 30 * SECOND });
    assert.deepEqual(
      pass.attempts.map((a) => [a.operationId, a.status]),
      [[short, "PASS"]],
    );
    assert.equal(pass.unfit.length, 230);
    assert.equal(pass.remaining.queued, 230);
  } finally {
    await h.close();
  }
});
