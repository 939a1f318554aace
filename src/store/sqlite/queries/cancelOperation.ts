import { operationEvent } from "../../../journal/operationEvent.js";
import type { Receipt } from "../../../receipt/receiptTypes.js";
import type { CancelOutcome, CancelResult, OperationRecord } from "../../Store.js";
import { isTerminalPhase } from "../../Store.js";
import { appendJournalEvent } from "../appendJournalEvent.js";
import { selectOperationRow, stateOf, writeOperationRow } from "../operationRowSql.js";
import type { OperationRow } from "../rows.js";
import { toOperation } from "../rows.js";
import { requireAuthentic } from "../authenticRow.js";
import type { SqliteContext } from "../sqliteContext.js";
import { selectTombstone } from "./readOperation.js";

const CANCEL = "cancel";

/**
 * Applies a cancel once per controlActionId: the outcome is stored with the id, and a repeated id
 * returns that first outcome without acting again. Queued or awaiting approval → cancelled (with a CANCELLED receipt);
 * running before the boundary → cancel requested (the runner stops, and the boundary can no longer
 * be crossed); running past the boundary → uncertain, not interrupted; finished → unchanged.
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
  let outcome: CancelOutcome;
  let next: OperationRow = row;
  if (isTerminalPhase(toOperation(row).phase)) {
    outcome = "already_terminal";
  } else if (row.phase === "queued" || row.phase === "awaiting_approval") {
    outcome = "cancelled";
    const receipt = cancelledReceipt(toOperation(row), row.task_json);
    next = { ...row, phase: "cancelled", revision: row.revision + 1, receipt_status: receipt.status, cancel_requested_ms: now, finished_ms: now, updated_ms: now };
    const event = appendJournalEvent(ctx, operationEvent("operation_finished", stateOf(next), { reason: "cancelled", controlActionId, receipt }), now);
    next = { ...next, receipt_seq: event.seq };
  } else if (row.mutation_boundary === "not_crossed") {
    outcome = "cancel_requested";
    next = { ...row, revision: row.revision + 1, cancel_requested_ms: now, updated_ms: now };
    appendJournalEvent(ctx, operationEvent("cancel_requested", stateOf(next), { controlActionId, outcome }), now);
  } else {
    outcome = "uncertain";
    next = { ...row, revision: row.revision + 1, updated_ms: now };
    appendJournalEvent(ctx, operationEvent("cancel_requested", stateOf(next), { controlActionId, outcome }), now);
  }
  if (next !== row) writeOperationRow(ctx, next);
  ctx.sql("INSERT INTO control_actions (control_action_id, operation_id, action, outcome, created_ms) VALUES (?, ?, ?, ?, ?)").run(controlActionId, operationId, CANCEL, outcome, now);
  return { kind: "applied", outcome, operation: toOperation(next) };
}
