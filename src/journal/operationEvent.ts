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
  /**
   * Who submitted the operation (see OWNER_SUBMITTER): it decides who may see and control it, so a
   * row edited to name another submitter fails authentication like any other state field.
   */
  submittedBy: string;
}

/**
 * The submitter of operations the owner submitted (CLI on the host), and of every operation stored
 * before errand recorded submitters: those are visible only to the owner and to operator tokens.
 * Others are "oauth:<grant (token family) id>" or "api:<API token id>".
 */
export const OWNER_SUBMITTER = "owner";

/**
 * Builds an operation event whose body carries the operation's state after the change, so the
 * latest authenticated event alone is enough to rebuild the operation's handle and to check its row.
 */
export function operationEvent(type: JournalEventType, state: OperationStateFields, details: Record<string, unknown> = {}): EventDraft {
  const { operationId, requestDigest, revision, phase, mutationBoundary, attempts, risk, maxAttempts, cancelRequested, submittedBy } = state;
  return {
    type,
    operationId,
    body: { ...details, operationId, requestDigest, revision, phase, mutationBoundary, attempts, risk, maxAttempts, cancelRequested, submittedBy },
  };
}
