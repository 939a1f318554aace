import type { OperationStateFields } from "../journal/operationEvent.js";
import type { MutationBoundary, ReceiptStatus } from "../receipt/receiptTypes.js";
import type { Risk } from "../task/taskTypes.js";
import type { OperationPhase } from "./operationPhase.js";

/** The durable record of one task: what every lifecycle decision is made from. */
export interface OperationRecord {
  operationId: string;
  requestDigest: string;
  risk: Risk;
  phase: OperationPhase;
  /** Increases by one with every journaled change of the operation. */
  revision: number;
  /** Attempts started so far, including attempts lost to a crash. */
  attempts: number;
  maxAttempts: number;
  mutationBoundary: MutationBoundary;
  runAfterMs: number;
  createdMs: number;
  updatedMs: number;
  finishedMs: number | null;
  cancelRequested: boolean;
  receiptStatus: ReceiptStatus | null;
  /** Runner holding the lease while running (diagnostic; the token itself never leaves the store and runner). */
  leaseOwner: string | null;
  leaseExpiresMs: number | null;
  /** While awaiting approval: when the wait ends BLOCKED approval_expired. */
  approvalExpiresMs: number | null;
  /** Who submitted it (journal/operationEvent OWNER_SUBMITTER, "oauth:<familyId>", "api:<tokenId>"); never changes. */
  submittedBy: string;
}

/** What a submit asks for: the operation to create. */
export interface NewOperation {
  operationId: string;
  requestDigest: string;
  risk: Risk;
  maxAttempts: number;
  /** The normalized task as JSON; it is what the runner executes. */
  taskJson: string;
  /** Extra fields for the operation_created event (ids, counts, choices; no task content). */
  details: Record<string, unknown>;
  /** When set, the operation waits for the owner's approval this long (ms, from the store's clock) instead of being queued. */
  approvalTtlMs?: number;
  /** Who submits it (OperationRecord.submittedBy); the owner when absent. */
  submittedBy?: string;
}

/** The fields of an operation that its journal events repeat (and that a stored row is checked against). */
export function operationState(operation: OperationRecord): OperationStateFields {
  const { operationId, requestDigest, revision, phase, mutationBoundary, attempts, risk, maxAttempts, cancelRequested, submittedBy } = operation;
  return { operationId, requestDigest, revision, phase, mutationBoundary, attempts, risk, maxAttempts, cancelRequested, submittedBy };
}
