import type { EventDraft, JournalEventType } from "./journalTypes.js";

/**
 * The state every operation event repeats, as it is after the change the event records. These are
 * the fields the runner decides from, so the latest authenticated event is enough to check a stored
 * row before anything is claimed, resumed, cancelled or approved (see authenticateOperationState).
 */
export interface OperationStateFields {
  operationId: string;
  requestDigest: string;
  revision: number;
  phase: string;
  mutationBoundary: string;
  attempts: number;
  risk: string;
  maxAttempts: number;
  cancelRequested: boolean;
}

/**
 * Builds an operation event whose body carries the operation's state after the change, so the
 * latest authenticated event alone is enough to rebuild the operation's handle and to check its row.
 */
export function operationEvent(type: JournalEventType, state: OperationStateFields, details: Record<string, unknown> = {}): EventDraft {
  const { operationId, requestDigest, revision, phase, mutationBoundary, attempts, risk, maxAttempts, cancelRequested } = state;
  return { type, operationId, body: { ...details, operationId, requestDigest, revision, phase, mutationBoundary, attempts, risk, maxAttempts, cancelRequested } };
}
