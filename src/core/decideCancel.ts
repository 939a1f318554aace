import type { OperationTombstone } from "../journal/journalTypes.js";
import type { Receipt } from "../receipt/receiptTypes.js";
import type { CancelOutcome, CancelResult } from "./cancelTypes.js";
import type { LiveOperation } from "./liveOperation.js";
import type { OperationRecord } from "./operationRecord.js";
import type { Transition } from "./operationTransitions.js";
import { cancel } from "./operationTransitions.js";

/** The action a cancel records with its controlActionId (the control_actions table's `action`). */
export const CANCEL_ACTION = "cancel";

/** A controlActionId as recorded by the first request that used it. */
export interface UsedControlAction {
  operationId: string;
  action: string;
  outcome: string;
}

/** A cancel as asked: the operation, the caller's controlActionId, and errand's CANCELLED receipt for a queued one. */
export interface CancelRequest {
  operationId: string;
  controlActionId: string;
  cancelledReceipt: (operation: OperationRecord, taskJson: string) => Receipt;
}

/** What the backend read for a cancel: the id's record, the live row, and the tombstone when no row is live. */
export interface CancelReads<Row> {
  used: UsedControlAction | undefined;
  live: LiveOperation<Row> | undefined;
  tombstone: OperationTombstone | undefined;
}

/**
 * What a cancel does: answer at once (nothing is written), or record `outcome` under the
 * controlActionId and write `transition` (none when the operation had already finished) to the row
 * it was read from, then answer "applied" with the operation as written. The backend authenticates
 * the row before it writes anything.
 */
export type CancelVerdict<Row> = { kind: "answer"; result: CancelResult } | { kind: "write"; row: Row; outcome: CancelOutcome; transition: Transition | null };

/**
 * A cancel, once per controlActionId, judged on what the backend read inside its write transaction,
 * at `now` on its clock:
 * - the id already recorded for another operation or action: control_id_reused;
 * - the id already recorded for this cancel, the operation still live: repeated, with the first outcome;
 * - no live operation: compacted when its tombstone is there, else not_found;
 * - otherwise the phase decides (operationTransitions.cancel): queued or awaiting approval → cancelled;
 *   running before the boundary → cancel requested; past it → uncertain, not interrupted; finished → already_terminal.
 */
export function decideCancel<Row>(reads: CancelReads<Row>, now: number, request: CancelRequest): CancelVerdict<Row> {
  const { used, live, tombstone } = reads;
  if (used !== undefined) {
    if (!isThisCancel(used, request.operationId)) return { kind: "answer", result: { kind: "control_id_reused", operationId: used.operationId } };
    if (live !== undefined) return { kind: "answer", result: { kind: "repeated", outcome: used.outcome as CancelOutcome, operation: live.operation } };
  }
  if (live === undefined) return { kind: "answer", result: tombstone === undefined ? { kind: "not_found" } : { kind: "compacted", tombstone } };
  const { operation, taskJson } = live;
  const { outcome, transition } = cancel(operation, now, request.controlActionId, () => request.cancelledReceipt(operation, taskJson));
  return { kind: "write", row: live.row, outcome, transition };
}

/**
 * The answer to a cancel whose controlActionId another cancel recorded while both were deciding (a
 * backend whose cancels on different operations run concurrently meets it): that first outcome when
 * it was this same cancel, else the id was reused. `winner` is undefined when its record is gone
 * again (its operation compacted meanwhile).
 */
export function answerControlIdTakenMeanwhile(winner: UsedControlAction | undefined, operationId: string, operation: OperationRecord): CancelResult {
  if (winner !== undefined && isThisCancel(winner, operationId)) return { kind: "repeated", outcome: winner.outcome as CancelOutcome, operation };
  return { kind: "control_id_reused", operationId: winner?.operationId ?? operationId };
}

function isThisCancel(used: UsedControlAction, operationId: string): boolean {
  return used.operationId === operationId && used.action === CANCEL_ACTION;
}
