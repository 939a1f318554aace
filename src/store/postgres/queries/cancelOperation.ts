import type { Receipt } from "../../../receipt/receiptTypes.js";
import type { CancelResult, OperationRecord } from "../../Store.js";
import type { UsedControlAction } from "../../../core/decideCancel.js";
import { answerControlIdTakenMeanwhile, CANCEL_ACTION, decideCancel } from "../../../core/decideCancel.js";
import { liveOperation, toOperation } from "../../rows/operationRows.js";
import { applyTransition } from "../applyTransition.js";
import { requireAuthentic } from "../authenticRow.js";
import type { PgTx } from "../pgContext.js";
import { selectOperationRow } from "./operationRowPg.js";
import { selectTombstone } from "./readOperation.js";

const SELECT_USED = 'SELECT operation_id AS "operationId", action, outcome FROM control_actions WHERE control_action_id = $1';

/**
 * A cancel on the locked row: reads the row (its tombstone when there is none) and the
 * controlActionId's record, lets src/core/decideCancel decide on the database clock, then
 * authenticates the row, records the outcome with the id and applies the transition. Two cancels
 * racing with one id are serialized by its primary key, and the later one is answered
 * (decideCancel's answerControlIdTakenMeanwhile), never a raw error.
 */
export async function cancelOperation(
  tx: PgTx,
  operationId: string,
  controlActionId: string,
  cancelledReceipt: (operation: OperationRecord, taskJson: string) => Receipt,
): Promise<CancelResult> {
  const row = await selectOperationRow(tx, operationId, true);
  const used = await tx.one<UsedControlAction>(SELECT_USED, [controlActionId]);
  const tombstone = row === undefined ? await selectTombstone(tx, operationId) : undefined;
  const verdict = decideCancel({ used, live: row === undefined ? undefined : liveOperation(row), tombstone }, tx.now, {
    operationId,
    controlActionId,
    cancelledReceipt,
  });
  if (verdict.kind === "answer") return verdict.result;

  await requireAuthentic(tx, verdict.row);
  // The id is claimed before anything changes: a cancel racing this one with the same id on another
  // operation (its row lock does not serialize with ours) makes this insert wait for it, then find
  // its row, and this cancel changes nothing instead of failing on the key.
  const claimed = await tx.run(
    "INSERT INTO control_actions (control_action_id, operation_id, action, outcome, created_ms) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (control_action_id) DO NOTHING",
    [controlActionId, operationId, CANCEL_ACTION, verdict.outcome, tx.now],
  );
  if (claimed === 0)
    return answerControlIdTakenMeanwhile(await tx.one<UsedControlAction>(SELECT_USED, [controlActionId]), operationId, toOperation(verdict.row));
  const next = verdict.transition === null ? verdict.row : await applyTransition(tx, verdict.row, verdict.transition);
  return { kind: "applied", outcome: verdict.outcome, operation: toOperation(next) };
}
