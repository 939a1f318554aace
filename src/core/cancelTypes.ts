import type { OperationTombstone } from "../journal/journalTypes.js";
import type { OperationRecord } from "./operationRecord.js";

export type CancelOutcome =
  /** The operation was queued and is now cancelled. */
  | "cancelled"
  /** It was running before its mutation boundary: the runner stops it at its next safe point. */
  | "cancel_requested"
  /** It was running past its mutation boundary: stopping now could not undo anything, so it is not interrupted. */
  | "uncertain"
  /** It had already finished; nothing was changed. */
  | "already_terminal";

export type CancelResult =
  | { kind: "applied"; outcome: CancelOutcome; operation: OperationRecord }
  /** This controlActionId was already applied to this operation: its first outcome, nothing repeated. */
  | { kind: "repeated"; outcome: CancelOutcome; operation: OperationRecord }
  /** This controlActionId was already used for another operation or action. */
  | { kind: "control_id_reused"; operationId: string }
  | { kind: "not_found" }
  | { kind: "compacted"; tombstone: OperationTombstone };
