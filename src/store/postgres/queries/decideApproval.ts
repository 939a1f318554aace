import type { ApprovalDecision, BlockedReceiptFactory, DecideApprovalResult } from "../../Store.js";
import { decideApproval as decide, expireApproval } from "../../../core/decideApproval.js";
import type { OperationRow } from "../../rows/operationRows.js";
import { liveOperation, toOperation } from "../../rows/operationRows.js";
import { applyTransition } from "../applyTransition.js";
import { isAuthentic, requireAuthentic } from "../authenticRow.js";
import type { PgTx } from "../pgContext.js";
import { selectOperationRow } from "./operationRowPg.js";

/**
 * The owner's decision on the locked row: read and authenticated here, decided by
 * src/core/decideApproval on the database clock (awaiting, the digest the owner was shown, before
 * its expiry), and the transition it returns applied here.
 */
export async function decideApproval(
  tx: PgTx,
  operationId: string,
  decision: ApprovalDecision,
  blockedReceipt: BlockedReceiptFactory,
): Promise<DecideApprovalResult> {
  const row = await selectOperationRow(tx, operationId, true);
  if (row !== undefined) await requireAuthentic(tx, row);
  const verdict = decide(row === undefined ? undefined : liveOperation(row), tx.now, decision, blockedReceipt);
  if (verdict.kind === "answer") return verdict.result;
  return { kind: verdict.answer, operation: toOperation(await applyTransition(tx, verdict.row, verdict.transition)) };
}

/** Ends every operation whose wait for approval expired before now (oldest expiry first; rows another process holds are left to it; core/decideApproval.expireApproval). */
export async function expireApprovals(tx: PgTx, blockedReceipt: BlockedReceiptFactory, limit: number): Promise<string[]> {
  const rows = await tx.rows<OperationRow>(
    "SELECT * FROM operations WHERE phase = 'awaiting_approval' AND approval_expires_ms <= $1 ORDER BY approval_expires_ms LIMIT $2 FOR UPDATE SKIP LOCKED",
    [tx.now, limit],
  );
  const ended: string[] = [];
  for (const row of rows) {
    if (!(await isAuthentic(tx, row))) continue;
    ended.push((await applyTransition(tx, row, expireApproval(liveOperation(row), tx.now, blockedReceipt))).operation_id);
  }
  return ended;
}
