import { operationEvent } from "../../../journal/operationEvent.js";
import type { ApprovalDecision, ApprovalEndCode, BlockedReceiptFactory, DecideApprovalResult } from "../../Store.js";
import { appendJournalEvent } from "../appendJournalEvent.js";
import { selectOperationRow, stateOf, writeOperationRow } from "../operationRowSql.js";
import type { OperationRow } from "../rows.js";
import { toOperation } from "../rows.js";
import { isAuthentic, requireAuthentic } from "../authenticRow.js";
import type { SqliteContext } from "../sqliteContext.js";

/**
 * The owner's decision, applied inside BEGIN IMMEDIATE so it is judged on the row as it stands: only
 * an operation still awaiting approval, under the digest the owner was shown, before its expiry.
 * Approval queues it (run_after now) and journals operation_approved with who, how and the digest;
 * a denial ends it BLOCKED approval_denied with a receipt. An expired wait is ended instead.
 */
export function decideApproval(ctx: SqliteContext, operationId: string, decision: ApprovalDecision, blockedReceipt: BlockedReceiptFactory): DecideApprovalResult {
  const row = selectOperationRow(ctx, operationId);
  if (row === undefined) return { kind: "not_found" };
  requireAuthentic(ctx, row);
  if (row.request_digest !== decision.requestDigest) return { kind: "digest_mismatch", operation: toOperation(row) };
  if (row.phase !== "awaiting_approval") {
    const expired = row.phase === "blocked" && row.approval_expires_ms !== null && row.finished_ms !== null && row.finished_ms >= row.approval_expires_ms && row.receipt_status === "BLOCKED";
    return { kind: expired ? "expired" : "not_awaiting", operation: toOperation(row) };
  }
  const now = ctx.clock();
  if (row.approval_expires_ms === null || now >= row.approval_expires_ms) {
    return { kind: "expired", operation: toOperation(endAwaiting(ctx, row, "approval_expired", blockedReceipt, {})) };
  }
  const decided = { decidedBy: decision.decidedBy, via: decision.via, decidedMs: now };
  if (!decision.approve) return { kind: "denied", operation: toOperation(endAwaiting(ctx, row, "approval_denied", blockedReceipt, decided)) };

  const next: OperationRow = { ...row, phase: "queued", revision: row.revision + 1, run_after_ms: now, updated_ms: now };
  appendJournalEvent(ctx, operationEvent("operation_approved", stateOf(next), { ...decided, approvedDigest: decision.requestDigest }), now);
  writeOperationRow(ctx, next);
  return { kind: "approved", operation: toOperation(next) };
}

/** Ends every operation whose wait for approval expired before now (oldest expiry first). */
export function expireApprovals(ctx: SqliteContext, blockedReceipt: BlockedReceiptFactory, limit: number): string[] {
  const rows = ctx
    .sql("SELECT * FROM operations WHERE phase = 'awaiting_approval' AND approval_expires_ms <= ? ORDER BY approval_expires_ms LIMIT ?")
    .all(ctx.clock(), limit) as OperationRow[];
  return rows.filter((row) => isAuthentic(ctx, row)).map((row) => endAwaiting(ctx, row, "approval_expired", blockedReceipt, {}).operation_id);
}

/** awaiting_approval → blocked, with a synthesized BLOCKED receipt in the operation_finished event. */
function endAwaiting(ctx: SqliteContext, row: OperationRow, code: ApprovalEndCode, blockedReceipt: BlockedReceiptFactory, details: Record<string, unknown>): OperationRow {
  const now = ctx.clock();
  const receipt = blockedReceipt(toOperation(row), row.task_json, code);
  const next: OperationRow = { ...row, phase: "blocked", revision: row.revision + 1, receipt_status: receipt.status, finished_ms: now, updated_ms: now };
  const event = appendJournalEvent(ctx, operationEvent("operation_finished", stateOf(next), { ...details, reason: code, receipt }), now);
  const stored = { ...next, receipt_seq: event.seq };
  writeOperationRow(ctx, stored);
  return stored;
}
