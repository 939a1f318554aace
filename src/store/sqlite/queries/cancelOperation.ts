import type { Receipt } from "../../../receipt/receiptTypes.js";
import type { CancelResult, OperationRecord } from "../../Store.js";
import type { UsedControlAction } from "../../../core/decideCancel.js";
import { CANCEL_ACTION, decideCancel } from "../../../core/decideCancel.js";
import { applyTransition } from "../applyTransition.js";
import { selectOperationRow } from "../operationRowSql.js";
import { liveOperation, toOperation } from "../../rows/operationRows.js";
import { requireAuthentic } from "../authenticRow.js";
import type { SqliteContext } from "../sqliteContext.js";
import { selectTombstone } from "./readOperation.js";

/**
 * A cancel inside BEGIN IMMEDIATE: reads the controlActionId's record, the operation's row (its
 * tombstone when there is none), lets src/core/decideCancel decide (a repeated id answers its first
 * outcome, the phase decides the rest), then authenticates the row, applies the transition and
 * records the outcome with the id.
 */
export function cancelOperation(
  ctx: SqliteContext,
  operationId: string,
  controlActionId: string,
  cancelledReceipt: (operation: OperationRecord, taskJson: string) => Receipt,
): CancelResult {
  const used = ctx.sql("SELECT operation_id AS operationId, action, outcome FROM control_actions WHERE control_action_id = ?").get(controlActionId) as
    UsedControlAction | undefined;
  const row = selectOperationRow(ctx, operationId);
  const tombstone = row === undefined ? selectTombstone(ctx, operationId) : undefined;
  const now = ctx.clock();
  const verdict = decideCancel({ used, live: row === undefined ? undefined : liveOperation(row), tombstone }, now, {
    operationId,
    controlActionId,
    cancelledReceipt,
  });
  if (verdict.kind === "answer") return verdict.result;

  requireAuthentic(ctx, verdict.row);
  const next = verdict.transition === null ? verdict.row : applyTransition(ctx, verdict.row, verdict.transition);
  ctx
    .sql("INSERT INTO control_actions (control_action_id, operation_id, action, outcome, created_ms) VALUES (?, ?, ?, ?, ?)")
    .run(controlActionId, operationId, CANCEL_ACTION, verdict.outcome, now);
  return { kind: "applied", outcome: verdict.outcome, operation: toOperation(next) };
}
