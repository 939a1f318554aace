import type { Receipt } from "../../../receipt/receiptTypes.js";
import type { CancelOutcome, CancelResult, OperationRecord } from "../../Store.js";
import { cancel } from "../../../core/operationTransitions.js";
import { toOperation } from "../../rows/operationRows.js";
import { applyTransition } from "../applyTransition.js";
import { requireAuthentic } from "../authenticRow.js";
import type { PgTx } from "../pgContext.js";
import { selectOperationRow } from "./operationRowPg.js";
import { selectTombstone } from "./readOperation.js";

const CANCEL = "cancel";

/**
 * Applies a cancel once per controlActionId: the outcome is stored with the id, and a repeated id
 * returns that first outcome without acting again; two cancels racing with one id are serialized by
 * its primary key, and the later one is answered (control_id_reused or repeated), never a raw error. What the cancel does is decided by operationTransitions.cancel on the locked row.
 */
export async function cancelOperation(
  tx: PgTx,
  operationId: string,
  controlActionId: string,
  cancelledReceipt: (operation: OperationRecord, taskJson: string) => Receipt,
): Promise<CancelResult> {
  const row = await selectOperationRow(tx, operationId, true);
  const previous = await tx.one<{ operation_id: string; action: string; outcome: string }>("SELECT operation_id, action, outcome FROM control_actions WHERE control_action_id = $1", [controlActionId]);
  if (previous !== undefined) {
    if (previous.operation_id !== operationId || previous.action !== CANCEL) return { kind: "control_id_reused", operationId: previous.operation_id };
    if (row !== undefined) return { kind: "repeated", outcome: previous.outcome as CancelOutcome, operation: toOperation(row) };
  }
  if (row === undefined) {
    const tombstone = await selectTombstone(tx, operationId);
    return tombstone === undefined ? { kind: "not_found" } : { kind: "compacted", tombstone };
  }

  await requireAuthentic(tx, row);
  const current = toOperation(row);
  const { outcome, transition } = cancel(current, tx.now, controlActionId, () => cancelledReceipt(current, row.task_json));
  // The id is claimed before anything changes: a cancel racing this one with the same id on another
  // operation (its row lock does not serialize with ours) makes this insert wait for it, then find
  // its row, and this cancel changes nothing (control_id_reused) instead of failing on the key.
  const claimed = await tx.run(
    "INSERT INTO control_actions (control_action_id, operation_id, action, outcome, created_ms) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (control_action_id) DO NOTHING",
    [controlActionId, operationId, CANCEL, outcome, tx.now],
  );
  if (claimed === 0) {
    const winner = await tx.one<{ operation_id: string; action: string; outcome: string }>("SELECT operation_id, action, outcome FROM control_actions WHERE control_action_id = $1", [controlActionId]);
    if (winner !== undefined && winner.operation_id === operationId && winner.action === CANCEL) return { kind: "repeated", outcome: winner.outcome as CancelOutcome, operation: current };
    return { kind: "control_id_reused", operationId: winner?.operation_id ?? operationId };
  }
  const next = transition === null ? row : await applyTransition(tx, row, transition);
  return { kind: "applied", outcome, operation: toOperation(next) };
}
