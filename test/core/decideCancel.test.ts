// A cancel's decision without a database: every branch of core/decideCancel (a controlActionId seen
// before, a missing or compacted operation, each phase), and the answer to a lost race on an id.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";
import type { CancelRequest, UsedControlAction } from "../../src/core/decideCancel.js";
import { answerControlIdTakenMeanwhile, CANCEL_ACTION, decideCancel } from "../../src/core/decideCancel.js";
import type { LiveOperation } from "../../src/core/liveOperation.js";
import type { OperationRecord } from "../../src/core/operationRecord.js";
import { claim, create, crossBoundary, resolve } from "../../src/core/operationTransitions.js";
import type { OperationTombstone } from "../../src/journal/journalTypes.js";
import { sampleReceipt } from "../support/sampleReceipt.js";

const T0 = Date.UTC(2026, 0, 1);
const ROW = { a: "backend row" };
const TASK_JSON = '{"task":"as stored"}';

function queued(approvalTtlMs?: number): OperationRecord {
  const input = {
    operationId: randomUUID(),
    requestDigest: "hmac-sha256:ab",
    risk: "reversible_write" as const,
    maxAttempts: 1,
    taskJson: TASK_JSON,
    details: {},
  };
  return create(approvalTtlMs === undefined ? input : { ...input, approvalTtlMs }, T0).next;
}

function running(crossed: boolean): OperationRecord {
  const op = claim(queued(), T0 + 1, { runnerId: "r", leaseMs: 90_000 }).next;
  if (!crossed) return op;
  const crossing = crossBoundary(op, T0 + 2);
  assert.ok(crossing !== null && crossing !== "cancel_requested");
  return crossing.next;
}

function live(operation: OperationRecord): LiveOperation<typeof ROW> {
  return { row: ROW, operation, taskJson: TASK_JSON };
}

/** A cancel of `operationId` whose CANCELLED receipt factory remembers what it was asked for. */
function request(operationId: string): CancelRequest & { calls: [string, string][] } {
  const calls: [string, string][] = [];
  return {
    operationId,
    controlActionId: "c-1",
    calls,
    cancelledReceipt: (operation, taskJson) => {
      calls.push([operation.operationId, taskJson]);
      return sampleReceipt({ status: "CANCELLED", operationId: operation.operationId });
    },
  };
}

function tombstoneOf(operationId: string): OperationTombstone {
  return {
    operationId,
    requestDigest: "hmac-sha256:ab",
    phase: "completed",
    receiptStatus: "PASS",
    attempts: 1,
    revision: 4,
    mutationBoundary: "not_crossed",
    lastSeq: 9,
    createdMs: T0,
    finishedMs: T0,
    compactedMs: T0,
    mac: "m",
  };
}

describe("core decideCancel", () => {
  test("an id recorded for another operation or another action: control_id_reused, whatever else was read", () => {
    const op = queued();
    for (const used of [
      { operationId: "other-op", action: CANCEL_ACTION, outcome: "cancelled" },
      { operationId: op.operationId, action: "pause", outcome: "cancelled" },
    ]) {
      for (const reads of [
        { live: live(op), tombstone: undefined },
        { live: undefined, tombstone: tombstoneOf(op.operationId) },
        { live: undefined, tombstone: undefined },
      ]) {
        const asked = request(op.operationId);
        assert.deepEqual(decideCancel({ used, ...reads }, T0 + 5, asked), {
          kind: "answer",
          result: { kind: "control_id_reused", operationId: used.operationId },
        });
        assert.equal(asked.calls.length, 0);
      }
    }
  });

  test("an id recorded for this cancel, the operation still live: repeated with the first outcome, nothing written", () => {
    const op = running(true);
    const used: UsedControlAction = { operationId: op.operationId, action: CANCEL_ACTION, outcome: "cancel_requested" };
    assert.deepEqual(decideCancel({ used, live: live(op), tombstone: undefined }, T0 + 5, request(op.operationId)), {
      kind: "answer",
      result: { kind: "repeated", outcome: "cancel_requested", operation: op },
    });
  });

  test("no live operation (with or without this id recorded): compacted when its tombstone is there, else not_found", () => {
    const id = randomUUID();
    for (const used of [undefined, { operationId: id, action: CANCEL_ACTION, outcome: "cancelled" }]) {
      const tombstone = tombstoneOf(id);
      assert.deepEqual(decideCancel({ used, live: undefined, tombstone }, T0, request(id)), { kind: "answer", result: { kind: "compacted", tombstone } });
      assert.deepEqual(decideCancel({ used, live: undefined, tombstone: undefined }, T0, request(id)), { kind: "answer", result: { kind: "not_found" } });
    }
  });

  test("queued or awaiting approval: cancelled at once with errand's CANCELLED receipt, made from the stored task", () => {
    for (const op of [queued(), queued(60_000)]) {
      const asked = request(op.operationId);
      const verdict = decideCancel({ used: undefined, live: live(op), tombstone: undefined }, T0 + 5, asked);
      assert.ok(verdict.kind === "write" && verdict.transition !== null);
      assert.equal(verdict.row, ROW, "the decision is applied to the row it was read from");
      assert.equal(verdict.outcome, "cancelled");
      assert.deepEqual(
        [verdict.transition.next.phase, verdict.transition.next.receiptStatus, verdict.transition.next.cancelRequested, verdict.transition.next.finishedMs],
        ["cancelled", "CANCELLED", true, T0 + 5],
      );
      assert.deepEqual([verdict.transition.event.body["reason"], verdict.transition.event.body["controlActionId"]], ["cancelled", "c-1"]);
      assert.deepEqual(asked.calls, [[op.operationId, TASK_JSON]]);
    }
  });

  test("running before its mutation boundary: cancel requested (the runner stops it); past it: uncertain, not interrupted", () => {
    const before = running(false);
    const requested = decideCancel({ used: undefined, live: live(before), tombstone: undefined }, T0 + 5, request(before.operationId));
    assert.ok(requested.kind === "write" && requested.transition !== null);
    assert.deepEqual(
      [requested.outcome, requested.transition.next.phase, requested.transition.next.cancelRequested, requested.transition.event.type],
      ["cancel_requested", "running", true, "cancel_requested"],
    );

    const past = running(true);
    const asked = request(past.operationId);
    const uncertain = decideCancel({ used: undefined, live: live(past), tombstone: undefined }, T0 + 5, asked);
    assert.ok(uncertain.kind === "write" && uncertain.transition !== null);
    assert.deepEqual(
      [uncertain.outcome, uncertain.transition.next.phase, uncertain.transition.next.cancelRequested, uncertain.transition.event.body["outcome"]],
      ["uncertain", "running", false, "uncertain"],
    );
    assert.equal(asked.calls.length, 0, "no receipt is made for a running operation");
  });

  test("already finished: already_terminal, the outcome recorded but no transition", () => {
    const op = running(false);
    const done = resolve(op, T0 + 3, { kind: "finish", phase: "completed", receipt: sampleReceipt({ status: "PASS" }), reason: "attempt_finished" }).next;
    const verdict = decideCancel({ used: undefined, live: live(done), tombstone: undefined }, T0 + 5, request(done.operationId));
    assert.deepEqual(verdict, { kind: "write", row: ROW, outcome: "already_terminal", transition: null });
  });

  test("an id another cancel recorded meanwhile: its outcome when it was this same cancel, else control_id_reused", () => {
    const op = queued();
    assert.deepEqual(answerControlIdTakenMeanwhile({ operationId: op.operationId, action: CANCEL_ACTION, outcome: "cancelled" }, op.operationId, op), {
      kind: "repeated",
      outcome: "cancelled",
      operation: op,
    });
    assert.deepEqual(answerControlIdTakenMeanwhile({ operationId: "other-op", action: CANCEL_ACTION, outcome: "cancelled" }, op.operationId, op), {
      kind: "control_id_reused",
      operationId: "other-op",
    });
    assert.deepEqual(answerControlIdTakenMeanwhile({ operationId: op.operationId, action: "pause", outcome: "cancelled" }, op.operationId, op), {
      kind: "control_id_reused",
      operationId: op.operationId,
    });
    assert.deepEqual(answerControlIdTakenMeanwhile(undefined, op.operationId, op), { kind: "control_id_reused", operationId: op.operationId });
  });
});
