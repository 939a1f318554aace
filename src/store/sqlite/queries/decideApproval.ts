import type { ApprovalDecision, ApprovalEndCode, BlockedReceiptFactory, DecideApprovalResult } from "../../Store.js";
import { approve, endAwaiting } from "../../../core/operationTransitions.js";
import { applyTransition } from "../applyTransition.js";
import { selectOperationRow } from "../operationRowSql.js";
import type { OperationRow } from "../../rows/operationRows.js";
import { toOperation } from "../../rows/operationRows.js";
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
    return { kind: "expired", operation: toOperation(endAwaitingRow(ctx, row, "approval_expired", blockedReceipt, {})) };
  }
  if (!decision.approve) {
    const decided = { decidedBy: decision.decidedBy, via: decision.via, decidedMs: now };
    return { kind: "denied", operation: toOperation(endAwaitingRow(ctx, row, "approval_denied", blockedReceipt, decided)) };
  }

  const next = applyTransition(ctx, row, approve(toOperation(row), now, decision));
  return { kind: "approved", operation: toOperation(next) };
}

/** Ends every operation whose wait for approval expired before now (oldest expiry first). */
export function expireApprovals(ctx: SqliteContext, blockedReceipt: BlockedReceiptFactory, limit: number): string[] {
  const rows = ctx
    .sql("SELECT * FROM operations WHERE phase = 'awaiting_approval' AND approval_expires_ms <= ? ORDER BY approval_expires_ms LIMIT ?")
    .all(ctx.clock(), limit) as OperationRow[];
  return rows.filter((row) => isAuthentic(ctx, row)).map((row) => endAwaitingRow(ctx, row, "approval_expired", blockedReceipt, {}).operation_id);
}

/** awaiting_approval → blocked, with a synthesized BLOCKED receipt in the operation_finished event (operationTransitions.endAwaiting). */
function endAwaitingRow(ctx: SqliteContext, row: OperationRow, code: ApprovalEndCode, blockedReceipt: BlockedReceiptFactory, details: Record<string, unknown>): OperationRow {
  const current = toOperation(row);
  return applyTransition(ctx, row, endAwaiting(current, ctx.clock(), code, blockedReceipt(current, row.task_json, code), details));
}
