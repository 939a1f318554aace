import type { ApprovalDecision, ApprovalEndCode, BlockedReceiptFactory, DecideApprovalResult } from "../../Store.js";
import { approve, endAwaiting } from "../../../core/operationTransitions.js";
import type { OperationRow } from "../../rows/operationRows.js";
import { toOperation } from "../../rows/operationRows.js";
import { applyTransition } from "../applyTransition.js";
import { isAuthentic, requireAuthentic } from "../authenticRow.js";
import type { PgTx } from "../pgContext.js";
import { selectOperationRow } from "./operationRowPg.js";

/**
 * The owner's decision, judged on the locked row: only an operation still awaiting approval, under
 * the digest the owner was shown, before its expiry (database clock). Approval queues it; a denial
 * ends it BLOCKED approval_denied with a receipt; an expired wait is ended instead.
 */
export async function decideApproval(tx: PgTx, operationId: string, decision: ApprovalDecision, blockedReceipt: BlockedReceiptFactory): Promise<DecideApprovalResult> {
  const row = await selectOperationRow(tx, operationId, true);
  if (row === undefined) return { kind: "not_found" };
  await requireAuthentic(tx, row);
  if (row.request_digest !== decision.requestDigest) return { kind: "digest_mismatch", operation: toOperation(row) };
  if (row.phase !== "awaiting_approval") {
    const expired = row.phase === "blocked" && row.approval_expires_ms !== null && row.finished_ms !== null && row.finished_ms >= row.approval_expires_ms && row.receipt_status === "BLOCKED";
    return { kind: expired ? "expired" : "not_awaiting", operation: toOperation(row) };
  }
  if (row.approval_expires_ms === null || tx.now >= row.approval_expires_ms) {
    return { kind: "expired", operation: toOperation(await endAwaitingRow(tx, row, "approval_expired", blockedReceipt, {})) };
  }
  if (!decision.approve) {
    const decided = { decidedBy: decision.decidedBy, via: decision.via, decidedMs: tx.now };
    return { kind: "denied", operation: toOperation(await endAwaitingRow(tx, row, "approval_denied", blockedReceipt, decided)) };
  }
  const next = await applyTransition(tx, row, approve(toOperation(row), tx.now, decision));
  return { kind: "approved", operation: toOperation(next) };
}

/** Ends every operation whose wait for approval expired before now (oldest expiry first; rows another process holds are left to it). */
export async function expireApprovals(tx: PgTx, blockedReceipt: BlockedReceiptFactory, limit: number): Promise<string[]> {
  const rows = await tx.rows<OperationRow>(
    "SELECT * FROM operations WHERE phase = 'awaiting_approval' AND approval_expires_ms <= $1 ORDER BY approval_expires_ms LIMIT $2 FOR UPDATE SKIP LOCKED",
    [tx.now, limit],
  );
  const ended: string[] = [];
  for (const row of rows) {
    if (!(await isAuthentic(tx, row))) continue;
    ended.push((await endAwaitingRow(tx, row, "approval_expired", blockedReceipt, {})).operation_id);
  }
  return ended;
}

/** awaiting_approval → blocked, with a synthesized BLOCKED receipt in the operation_finished event (operationTransitions.endAwaiting). */
function endAwaitingRow(tx: PgTx, row: OperationRow, code: ApprovalEndCode, blockedReceipt: BlockedReceiptFactory, details: Record<string, unknown>): Promise<OperationRow> {
  const current = toOperation(row);
  return applyTransition(tx, row, endAwaiting(current, tx.now, code, blockedReceipt(current, row.task_json, code), details));
}
