// The operation lifecycle as pure functions: each transition checks where it comes from, bumps the
// revision once, and returns the event that states exactly the record it produced.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";
import type { Receipt, ReceiptStatus } from "../../src/receipt/receiptTypes.js";
import { approve, cancel, claim, create, crossBoundary, endAwaiting, resolve, TransitionError } from "../../src/core/operationTransitions.js";
import type { Transition } from "../../src/core/operationTransitions.js";
import type { OperationPhase, OperationRecord } from "../../src/store/Store.js";
import { OPERATION_PHASES, operationState } from "../../src/store/Store.js";
import { sampleReceipt } from "../support/sampleReceipt.js";

const T0 = Date.UTC(2026, 0, 1);

function receipt(status: ReceiptStatus, boundary: Receipt["mutationBoundary"] = "not_crossed"): Receipt {
  return sampleReceipt({ status, risk: "reversible_write", mutationBoundary: boundary });
}

function created(approvalTtlMs?: number): OperationRecord {
  const input = {
    operationId: randomUUID(),
    requestDigest: "hmac-sha256:ab",
    risk: "reversible_write" as const,
    maxAttempts: 2,
    taskJson: "{}",
    details: { steps: 2 },
  };
  return create(approvalTtlMs === undefined ? input : { ...input, approvalTtlMs }, T0).next;
}

/** The event states the record it came with, and the revision moved by one. */
function checked(before: OperationRecord | null, t: Transition): OperationRecord {
  for (const [field, value] of Object.entries(operationState(t.next))) assert.deepEqual(t.event.body[field], value, field);
  assert.equal(t.event.operationId, t.next.operationId);
  if (before !== null) assert.equal(t.next.revision, before.revision + 1);
  return t.next;
}

describe("operation transitions", () => {
  test("a write's whole life: create, claim, cross its boundary, finish; each event states the record", () => {
    let op = checked(
      null,
      create({ operationId: randomUUID(), requestDigest: "hmac-sha256:ab", risk: "reversible_write", maxAttempts: 2, taskJson: "{}", details: {} }, T0),
    );
    assert.deepEqual([op.phase, op.revision, op.attempts], ["queued", 1, 0]);
    op = checked(op, claim(op, T0 + 1, { runnerId: "r1", leaseMs: 90_000 }));
    assert.deepEqual([op.phase, op.attempts, op.leaseOwner, op.leaseExpiresMs], ["running", 1, "r1", T0 + 90_001]);
    const crossing = crossBoundary(op, T0 + 2);
    assert.ok(crossing !== null && crossing !== "cancel_requested");
    op = checked(op, crossing);
    assert.equal(crossBoundary(op, T0 + 3), null, "crossing twice records nothing");
    const done = resolve(op, T0 + 4, { kind: "finish", phase: "completed", receipt: receipt("PASS", "crossed"), reason: "attempt_finished" });
    op = checked(op, done);
    assert.deepEqual([op.phase, op.receiptStatus, op.leaseOwner, op.finishedMs, op.mutationBoundary], ["completed", "PASS", null, T0 + 4, "crossed"]);
    assert.equal(done.event.type, "operation_finished");
  });

  test("a read that fails goes back to the queue after its delay, releasing the lease", () => {
    const op = claim(created(), T0, { runnerId: "r", leaseMs: 1000 }).next;
    const t = resolve(op, T0 + 5, {
      kind: "requeue",
      delayMs: 10_000,
      attemptOutcome: "FAIL",
      errorCode: "step_failed",
      provider: "local",
      reason: "retry_read_only_failure",
    });
    const next = checked(op, t);
    assert.deepEqual([next.phase, next.runAfterMs, next.leaseOwner, next.leaseExpiresMs], ["queued", T0 + 10_005, null, null]);
    assert.deepEqual([t.event.body["attempt"], t.event.body["attemptOutcome"], t.event.body["provider"]], [1, "FAIL", "local"]);
  });

  test("approval: approve queues it, a denial or expiry ends it BLOCKED; nothing else can start there", () => {
    const waiting = created(60_000);
    assert.deepEqual([waiting.phase, waiting.approvalExpiresMs], ["awaiting_approval", T0 + 60_000]);
    const approved = checked(waiting, approve(waiting, T0 + 1, { approve: true, requestDigest: waiting.requestDigest, decidedBy: "owner", via: "cli" }));
    assert.deepEqual([approved.phase, approved.runAfterMs], ["queued", T0 + 1]);
    const denied = checked(waiting, endAwaiting(waiting, T0 + 1, "approval_denied", receipt("BLOCKED")));
    assert.deepEqual([denied.phase, denied.receiptStatus], ["blocked", "BLOCKED"]);
    assert.throws(() => claim(waiting, T0, { runnerId: "r", leaseMs: 1 }), TransitionError);
  });

  test("cancel decides by phase and boundary; a pending cancel refuses the boundary", () => {
    const queued = created();
    const q = cancel(queued, T0 + 1, "c1", () => receipt("CANCELLED"));
    assert.equal(q.outcome, "cancelled");
    assert.ok(q.transition !== null);
    assert.deepEqual([checked(queued, q.transition).phase, q.transition.next.cancelRequested], ["cancelled", true]);

    const running = claim(created(), T0, { runnerId: "r", leaseMs: 1000 }).next;
    const r = cancel(running, T0 + 1, "c2", () => receipt("CANCELLED"));
    assert.equal(r.outcome, "cancel_requested");
    assert.ok(r.transition !== null);
    const requested = checked(running, r.transition);
    assert.deepEqual([requested.phase, requested.cancelRequested], ["running", true]);
    assert.equal(crossBoundary(requested, T0 + 2), "cancel_requested");

    const crossed = { ...running, mutationBoundary: "crossed" as const };
    const u = cancel(crossed, T0 + 1, "c3", () => receipt("CANCELLED"));
    assert.equal(u.outcome, "uncertain");
    assert.ok(u.transition !== null);
    assert.deepEqual([checked(crossed, u.transition).phase, u.transition.next.cancelRequested], ["running", false]);

    const finished = { ...running, phase: "completed" as const };
    assert.deepEqual(
      cancel(finished, T0, "c4", () => receipt("CANCELLED")),
      { outcome: "already_terminal", transition: null },
    );
  });

  test("each transition refuses every phase it does not start from", () => {
    const base = created();
    const starts: Record<string, { phases: OperationPhase[]; run: (op: OperationRecord) => unknown }> = {
      claim: { phases: ["queued"], run: (op) => claim(op, T0, { runnerId: "r", leaseMs: 1 }) },
      crossBoundary: { phases: ["running"], run: (op) => crossBoundary(op, T0) },
      resolve: { phases: ["running"], run: (op) => resolve(op, T0, { kind: "finish", phase: "completed", receipt: receipt("PASS"), reason: "x" }) },
      approve: { phases: ["awaiting_approval"], run: (op) => approve(op, T0, { approve: true, requestDigest: "d", decidedBy: "o", via: "cli" }) },
      endAwaiting: { phases: ["awaiting_approval"], run: (op) => endAwaiting(op, T0, "approval_expired", receipt("BLOCKED")) },
    };
    for (const [name, { phases, run }] of Object.entries(starts)) {
      for (const phase of OPERATION_PHASES) {
        const op = { ...base, phase };
        if (phases.includes(phase)) assert.doesNotThrow(() => run(op), `${name} from ${phase}`);
        else assert.throws(() => run(op), TransitionError, `${name} from ${phase}`);
      }
    }
  });
});
