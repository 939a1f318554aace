// The owner's approval decision without a database: every branch of core/decideApproval, judged on
// a record as a backend would read it, with the clock and the request given.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";
import type { ApprovalDecision, ApprovalEndCode } from "../../src/core/approvalTypes.js";
import { decideApproval, expireApproval } from "../../src/core/decideApproval.js";
import type { LiveOperation } from "../../src/core/liveOperation.js";
import type { OperationRecord } from "../../src/core/operationRecord.js";
import { claim, create, endAwaiting } from "../../src/core/operationTransitions.js";
import type { Receipt } from "../../src/receipt/receiptTypes.js";
import { sampleReceipt } from "../support/sampleReceipt.js";

const T0 = Date.UTC(2026, 0, 1);
const TTL = 60_000;
const ROW = { a: "backend row" };
const TASK_JSON = '{"task":"as stored"}';

function awaiting(): OperationRecord {
  return create(
    {
      operationId: randomUUID(),
      requestDigest: "hmac-sha256:ab",
      risk: "reversible_write",
      maxAttempts: 1,
      taskJson: TASK_JSON,
      details: {},
      approvalTtlMs: TTL,
    },
    T0,
  ).next;
}

function live(operation: OperationRecord): LiveOperation<typeof ROW> {
  return { row: ROW, operation, taskJson: TASK_JSON };
}

function decision(operation: OperationRecord, approve: boolean, requestDigest = operation.requestDigest): ApprovalDecision {
  return { approve, requestDigest, decidedBy: "owner (cli: ada@host)", via: "cli" };
}

/** A BLOCKED receipt factory that remembers what it was asked for. */
function blockedReceipts(): {
  factory: (operation: OperationRecord, taskJson: string, code: ApprovalEndCode) => Receipt;
  calls: [string, string, ApprovalEndCode][];
} {
  const calls: [string, string, ApprovalEndCode][] = [];
  return {
    calls,
    factory: (operation, taskJson, code) => {
      calls.push([operation.operationId, taskJson, code]);
      return sampleReceipt({ status: "BLOCKED", operationId: operation.operationId });
    },
  };
}

describe("core decideApproval", () => {
  test("no live row: not_found, nothing written", () => {
    const receipts = blockedReceipts();
    assert.deepEqual(decideApproval(undefined, T0, decision(awaiting(), true), receipts.factory), { kind: "answer", result: { kind: "not_found" } });
    assert.equal(receipts.calls.length, 0);
  });

  test("another digest than the one the owner was shown: digest_mismatch, whatever the phase or expiry", () => {
    const op = awaiting();
    for (const now of [T0 + 1, T0 + TTL + 1]) {
      assert.deepEqual(decideApproval(live(op), now, decision(op, true, "hmac-sha256:other"), blockedReceipts().factory), {
        kind: "answer",
        result: { kind: "digest_mismatch", operation: op },
      });
    }
  });

  test("no longer awaiting: expired when its wait was ended BLOCKED by expiry, not_awaiting otherwise", () => {
    const op = awaiting();
    const expired = expireApproval(live(op), T0 + TTL, blockedReceipts().factory).next;
    assert.deepEqual(decideApproval(live(expired), T0 + TTL + 5, decision(expired, true), blockedReceipts().factory), {
      kind: "answer",
      result: { kind: "expired", operation: expired },
    });

    const denied = endAwaiting(op, T0 + 10, "approval_denied", sampleReceipt({ status: "BLOCKED" })).next;
    assert.deepEqual(decideApproval(live(denied), T0 + 20, decision(denied, true), blockedReceipts().factory), {
      kind: "answer",
      result: { kind: "not_awaiting", operation: denied },
    });

    const queued = create(
      { operationId: randomUUID(), requestDigest: "hmac-sha256:ab", risk: "read_only", maxAttempts: 1, taskJson: TASK_JSON, details: {} },
      T0,
    ).next;
    const running = claim(queued, T0 + 1, { runnerId: "r", leaseMs: 1000 }).next;
    for (const op2 of [queued, running]) {
      assert.deepEqual(decideApproval(live(op2), T0 + 2, decision(op2, false), blockedReceipts().factory), {
        kind: "answer",
        result: { kind: "not_awaiting", operation: op2 },
      });
    }
    // Blocked without an approval expiry, or not BLOCKED at or after it, is not an expiry.
    const blockedEarly = { ...expired, finishedMs: T0 + TTL - 1 };
    const blockedOther = { ...expired, receiptStatus: "FAIL" as const };
    const neverAwaited = { ...expired, approvalExpiresMs: null };
    for (const op3 of [blockedEarly, blockedOther, neverAwaited]) {
      assert.equal(
        (decideApproval(live(op3), T0 + TTL + 5, decision(op3, true), blockedReceipts().factory) as { result: { kind: string } }).result.kind,
        "not_awaiting",
      );
    }
  });

  test("awaiting but past its expiry (from the expiry instant on, or with none): ended BLOCKED approval_expired, approve or deny", () => {
    const op = awaiting();
    for (const [candidate, now] of [
      [op, T0 + TTL],
      [op, T0 + TTL + 1],
      [{ ...op, approvalExpiresMs: null }, T0 + 1],
    ] as const) {
      for (const approve of [true, false]) {
        const receipts = blockedReceipts();
        const verdict = decideApproval(live(candidate), now, decision(candidate, approve), receipts.factory);
        assert.ok(verdict.kind === "write");
        assert.equal(verdict.answer, "expired");
        assert.equal(verdict.row, ROW, "the decision is applied to the row it was read from");
        assert.deepEqual(
          [verdict.transition.next.phase, verdict.transition.next.receiptStatus, verdict.transition.next.finishedMs],
          ["blocked", "BLOCKED", now],
        );
        assert.deepEqual([verdict.transition.event.type, verdict.transition.event.body["reason"]], ["operation_finished", "approval_expired"]);
        assert.deepEqual(receipts.calls, [[candidate.operationId, TASK_JSON, "approval_expired"]]);
      }
    }
  });

  test("denied before its expiry: ended BLOCKED approval_denied, recording who, how and when", () => {
    const op = awaiting();
    const receipts = blockedReceipts();
    const verdict = decideApproval(live(op), T0 + TTL - 1, decision(op, false), receipts.factory);
    assert.ok(verdict.kind === "write");
    assert.equal(verdict.answer, "denied");
    assert.equal(verdict.row, ROW);
    assert.deepEqual(
      [verdict.transition.next.phase, verdict.transition.next.receiptStatus, verdict.transition.next.updatedMs],
      ["blocked", "BLOCKED", T0 + TTL - 1],
    );
    const body = verdict.transition.event.body;
    assert.deepEqual([body["reason"], body["decidedBy"], body["via"], body["decidedMs"]], ["approval_denied", "owner (cli: ada@host)", "cli", T0 + TTL - 1]);
    assert.deepEqual(receipts.calls, [[op.operationId, TASK_JSON, "approval_denied"]]);
  });

  test("approved before its expiry: queued and eligible at once, the digest shown recorded; no receipt made", () => {
    const op = awaiting();
    const receipts = blockedReceipts();
    const verdict = decideApproval(live(op), T0 + 5, decision(op, true), receipts.factory);
    assert.ok(verdict.kind === "write");
    assert.equal(verdict.answer, "approved");
    assert.equal(verdict.row, ROW);
    assert.deepEqual(
      [verdict.transition.next.phase, verdict.transition.next.runAfterMs, verdict.transition.next.revision],
      ["queued", T0 + 5, op.revision + 1],
    );
    assert.deepEqual(
      [verdict.transition.event.type, verdict.transition.event.body["approvedDigest"], verdict.transition.event.body["decidedBy"]],
      ["operation_approved", op.requestDigest, "owner (cli: ada@host)"],
    );
    assert.equal(receipts.calls.length, 0);
  });
});
