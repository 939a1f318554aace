import type { Receipt } from "../../../receipt/receiptTypes.js";
import type { CancelOutcome, CancelResult, OperationRecord } from "../../Store.js";
import { cancel } from "../../../core/operationTransitions.js";
import { applyTransition } from "../applyTransition.js";
import { selectOperationRow } from "../operationRowSql.js";
import { toOperation } from "../../rows/operationRows.js";
import { requireAuthentic } from "../authenticRow.js";
import type { SqliteContext } from "../sqliteContext.js";
import { selectTombstone } from "./readOperation.js";

const CANCEL = "cancel";

/**
 * Applies a cancel once per controlActionId: the outcome is stored with the id, and a repeated id
 * returns that first outcome without acting again. What the cancel does is decided by
 * operationTransitions.cancel (queued → cancelled; running before the boundary → cancel requested;
 * past it → uncertain, not interrupted; finished → unchanged).
 */
export function cancelOperation(
  ctx: SqliteContext,
  operationId: string,
  controlActionId: string,
  cancelledReceipt: (operation: OperationRecord, taskJson: string) => Receipt,
): CancelResult {
  const previous = ctx.sql("SELECT operation_id, action, outcome FROM control_actions WHERE control_action_id = ?").get(controlActionId) as
    | { operation_id: string; action: string; outcome: string }
    | undefined;
  const row = selectOperationRow(ctx, operationId);
  if (previous !== undefined) {
    if (previous.operation_id !== operationId || previous.action !== CANCEL) return { kind: "control_id_reused", operationId: previous.operation_id };
    if (row !== undefined) return { kind: "repeated", outcome: previous.outcome as CancelOutcome, operation: toOperation(row) };
  }
  if (row === undefined) {
    const tombstone = selectTombstone(ctx, operationId);
    return tombstone === undefined ? { kind: "not_found" } : { kind: "compacted", tombstone };
  }

  requireAuthentic(ctx, row);
  const now = ctx.clock();
  const current = toOperation(row);
  const { outcome, transition } = cancel(current, now, controlActionId, () => cancelledReceipt(current, row.task_json));
  const next = transition === null ? row : applyTransition(ctx, row, transition);
  ctx.sql("INSERT INTO control_actions (control_action_id, operation_id, action, outcome, created_ms) VALUES (?, ?, ?, ?, ?)").run(controlActionId, operationId, CANCEL, outcome, now);
  return { kind: "applied", outcome, operation: toOperation(next) };
}
