import type { JournalSealer } from "./createJournalSealer.js";
import type { ChainHead, JournalEventRow } from "./journalTypes.js";
import type { OperationStateFields } from "./operationEvent.js";
import { OWNER_SUBMITTER } from "./operationEvent.js";

/** The state fields, in the order a mismatch is reported. */
const STATE_FIELDS: readonly (keyof OperationStateFields)[] = [
  "operationId",
  "requestDigest",
  "revision",
  "phase",
  "mutationBoundary",
  "attempts",
  "risk",
  "maxAttempts",
  "cancelRequested",
  "submittedBy",
];

/**
 * Fields that events written before errand recorded them do not carry. An authenticated event cannot
 * have a field removed, so "absent" only ever means "written by an older errand"; the runner checks
 * risk against the digest-checked task as well.
 */
const LATER_FIELDS: ReadonlySet<keyof OperationStateFields> = new Set(["risk", "maxAttempts", "cancelRequested"]);

/**
 * Later fields whose absence has a meaning of its own: an operation whose events name no submitter
 * was stored before errand recorded them, and counts as the owner's (so a row naming anyone else is
 * refused, and such an operation is never handed to a grant by editing its row).
 */
const ABSENT_MEANS: Partial<Record<keyof OperationStateFields, unknown>> = { submittedBy: OWNER_SUBMITTER };

export type StateAuthentication = { ok: true; body: Record<string, unknown> } | { ok: false; reason: string };

/**
 * Checks an operation's stored state against its latest journal event: the event must belong to the
 * operation, pass its MAC and body hash, and state exactly what the row says. Whoever can write the
 * database but does not hold the key can edit the row (set a finished write back to queued, reset its
 * attempts, un-cross its boundary) but cannot forge the event, so every such edit is refused here.
 *
 * When the row's chain head is given, the latest event must be exactly that head (its place and
 * MAC), so an event cut off the end of the operation's chain is noticed even if the row was not edited.
 *
 * One event is not a chain proof: deleting an operation's later events and rolling its row back to
 * an earlier event together is found only by a checkpoint taken after them (`errand journal verify`;
 * docs/SECURITY.md, "Per-operation chains and checkpoints").
 */
export function authenticateOperationState(
  state: OperationStateFields,
  latest: JournalEventRow | undefined,
  sealer: JournalSealer,
  journalId: string,
  chainHead?: ChainHead,
): StateAuthentication {
  const body = readAuthenticEventBody(latest, sealer, journalId, state.operationId);
  if (body === null) return { ok: false, reason: "its latest journal event is missing or does not match its MAC" };
  if (chainHead !== undefined && (latest?.chainSeq !== chainHead.seq || !sealer.macEquals(chainHead.mac, latest.mac))) {
    return { ok: false, reason: "its latest journal event is not the end of its chain that its row names" };
  }
  for (const field of STATE_FIELDS) {
    const recorded = body[field] ?? ABSENT_MEANS[field];
    if (recorded === undefined && LATER_FIELDS.has(field)) continue;
    if (recorded !== state[field]) return { ok: false, reason: `its stored ${field} differs from its latest journal event` };
  }
  return { ok: true, body };
}

/** The parsed body of an event that belongs to the operation and passes its MAC and body hash; null otherwise. */
export function readAuthenticEventBody(
  event: JournalEventRow | undefined,
  sealer: JournalSealer,
  journalId: string,
  operationId: string,
): Record<string, unknown> | null {
  if (event === undefined || event.body === null || event.operationId !== operationId) return null;
  const { body, mac, ...fields } = event;
  if (!sealer.macEquals(sealer.eventMac(journalId, fields), mac) || !sealer.macEquals(sealer.bodyHash(body), event.bodyHash)) return null;
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return null;
    const record = parsed as Record<string, unknown>;
    return record["operationId"] === operationId ? record : null;
  } catch {
    return null;
  }
}
