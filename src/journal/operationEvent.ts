import type { EventDraft, JournalEventType } from "./journalTypes.js";

/** The state every operation event repeats, as it is after the change the event records. */
export interface OperationStateFields {
  operationId: string;
  requestDigest: string;
  revision: number;
  phase: string;
  mutationBoundary: string;
  attempts: number;
}

/**
 * Builds an operation event whose body carries the operation's state after the change, so the
 * latest authenticated event alone is enough to rebuild the operation's handle.
 */
export function operationEvent(type: JournalEventType, state: OperationStateFields, details: Record<string, unknown> = {}): EventDraft {
  const { operationId, requestDigest, revision, phase, mutationBoundary, attempts } = state;
  return { type, operationId, body: { ...details, operationId, requestDigest, revision, phase, mutationBoundary, attempts } };
}
