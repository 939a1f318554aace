import type { ApprovalDecision, BlockedReceiptFactory, DecideApprovalResult } from "../../Store.js";
import { decideApproval as decide, expireApproval } from "../../../core/decideApproval.js";
import { applyTransition } from "../applyTransition.js";
import { selectOperationRow } from "../operationRowSql.js";
import type { OperationRow } from "../../rows/operationRows.js";
import { liveOperation, toOperation } from "../../rows/operationRows.js";
import { isAuthentic, requireAuthentic } from "../authenticRow.js";
import type { SqliteContext } from "../sqliteContext.js";

/**
 * The owner's decision, inside BEGIN IMMEDIATE so it is judged on the row as it stands: the row is
 * read and authenticated here, decided by src/core/decideApproval (awaiting, the digest the owner was
 * shown, before its expiry) and the transition it returns is applied here.
 */
export function decideApproval(
  ctx: SqliteContext,
  operationId: string,
  decision: ApprovalDecision,
  blockedReceipt: BlockedReceiptFactory,
): DecideApprovalResult {
  const row = selectOperationRow(ctx, operationId);
  if (row !== undefined) requireAuthentic(ctx, row);
  const verdict = decide(row === undefined ? undefined : liveOperation(row), ctx.clock(), decision, blockedReceipt);
  if (verdict.kind === "answer") return verdict.result;
  return { kind: verdict.answer, operation: toOperation(applyTransition(ctx, verdict.row, verdict.transition)) };
}

/** Ends every operation whose wait for approval expired before now (oldest expiry first; core/decideApproval.expireApproval). */
export function expireApprovals(ctx: SqliteContext, blockedReceipt: BlockedReceiptFactory, limit: number): string[] {
  const rows = ctx
    .sql("SELECT * FROM operations WHERE phase = 'awaiting_approval' AND approval_expires_ms <= ? ORDER BY approval_expires_ms LIMIT ?")
    .all(ctx.clock(), limit) as OperationRow[];
  return rows
    .filter((row) => isAuthentic(ctx, row))
    .map((row) => applyTransition(ctx, row, expireApproval(liveOperation(row), ctx.clock(), blockedReceipt)).operation_id);
}
