import type { OperationRecord } from "../../Store.js";
import { decideReopen } from "../../../core/decideReopen.js";
import { applyTransition } from "../applyTransition.js";
import { requireAuthentic } from "../authenticRow.js";
import { selectOperationRow } from "../operationRowSql.js";
import { toOperation } from "../../rows/operationRows.js";
import type { SqliteContext } from "../sqliteContext.js";

/**
 * Applies the reopen transition (blocked → queued) that src/core/decideReopen returns while the row
 * is still blocked at the revision the caller judged (a concurrent change wins), once the row
 * matches its journal. The row-only columns the transition does not cover are set here: the receipt
 * is detached and the attempt limit raised.
 */
export function reopenOperation(
  ctx: SqliteContext,
  operationId: string,
  expectedRevision: number,
  extraAttempts: number,
  reason: string,
): OperationRecord | undefined {
  const row = selectOperationRow(ctx, operationId);
  const transition = decideReopen(row === undefined ? undefined : toOperation(row), expectedRevision, ctx.clock(), extraAttempts, reason);
  if (row === undefined || transition === undefined) return undefined;
  requireAuthentic(ctx, row);
  const stored = applyTransition(ctx, row, transition);
  ctx.sql("UPDATE operations SET receipt_seq = NULL, max_attempts = ? WHERE operation_id = ?").run(transition.next.maxAttempts, operationId);
  return toOperation({ ...stored, receipt_seq: null, max_attempts: transition.next.maxAttempts });
}
