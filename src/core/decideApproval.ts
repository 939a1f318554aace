import type { ApprovalDecision, BlockedReceiptFactory, DecideApprovalResult } from "./approvalTypes.js";
import type { LiveOperation } from "./liveOperation.js";
import type { OperationRecord } from "./operationRecord.js";
import type { Transition } from "./operationTransitions.js";
import { approve, endAwaiting } from "./operationTransitions.js";

/**
 * What an approval decision does: answer at once (nothing is written), or write a transition to the
 * row it was read from and then answer `answer` with the operation as written.
 */
export type ApprovalVerdict<Row> =
  { kind: "answer"; result: DecideApprovalResult } | { kind: "write"; row: Row; transition: Transition; answer: "approved" | "denied" | "expired" };

/**
 * The owner's decision on an operation, judged on its row as the backend read it inside its write
 * transaction (authenticated first), at `now` on the backend's clock:
 * - no live row: not_found;
 * - another request digest than the one the owner was shown: digest_mismatch (nothing changes);
 * - no longer awaiting approval: expired when its wait already ended BLOCKED by expiry, else not_awaiting;
 * - awaiting, but its approval expired (or never had an expiry): ended BLOCKED approval_expired;
 * - denied: ended BLOCKED approval_denied, recording who denied it, how and when;
 * - approved: queued, eligible at once (operation_approved names who, how and the digest).
 */
export function decideApproval<Row>(
  live: LiveOperation<Row> | undefined,
  now: number,
  decision: ApprovalDecision,
  blockedReceipt: BlockedReceiptFactory,
): ApprovalVerdict<Row> {
  if (live === undefined) return { kind: "answer", result: { kind: "not_found" } };
  const { operation } = live;
  if (operation.requestDigest !== decision.requestDigest) return { kind: "answer", result: { kind: "digest_mismatch", operation } };
  if (operation.phase !== "awaiting_approval") return { kind: "answer", result: { kind: endedByExpiry(operation) ? "expired" : "not_awaiting", operation } };
  if (operation.approvalExpiresMs === null || now >= operation.approvalExpiresMs) {
    return { kind: "write", row: live.row, transition: expireApproval(live, now, blockedReceipt), answer: "expired" };
  }
  if (!decision.approve) {
    const denied = endAwaiting(operation, now, "approval_denied", blockedReceipt(operation, live.taskJson, "approval_denied"), {
      decidedBy: decision.decidedBy,
      via: decision.via,
      decidedMs: now,
    });
    return { kind: "write", row: live.row, transition: denied, answer: "denied" };
  }
  return { kind: "write", row: live.row, transition: approve(operation, now, decision), answer: "approved" };
}

/** awaiting_approval → blocked approval_expired, with errand's BLOCKED receipt: a decision past the wait, or the expiry sweep. */
export function expireApproval(live: LiveOperation<unknown>, now: number, blockedReceipt: BlockedReceiptFactory): Transition {
  return endAwaiting(live.operation, now, "approval_expired", blockedReceipt(live.operation, live.taskJson, "approval_expired"));
}

/** An operation whose wait for approval was ended BLOCKED because it expired (finished at or after its expiry). */
function endedByExpiry(operation: OperationRecord): boolean {
  const { phase, approvalExpiresMs, finishedMs, receiptStatus } = operation;
  return phase === "blocked" && approvalExpiresMs !== null && finishedMs !== null && finishedMs >= approvalExpiresMs && receiptStatus === "BLOCKED";
}
