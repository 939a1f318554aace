import type { JournalSealer } from "../journal/createJournalSealer.js";
import { readAuthenticEventBody } from "../journal/authenticateOperationState.js";
import type { JournalEventRow } from "../journal/journalTypes.js";
import type { AttemptRecord, OperationRecord } from "../store/Store.js";

/**
 * The attempt history of an operation, derived from its journal events alone: each must pass its MAC
 * and body hash, and their revisions must run 1, 2, 3 … up to the (already authenticated) revision of
 * the operation, so no attempt can be forged, altered, hidden or removed without the history being
 * refused. Events newer than `operation` (written since it was read) are left out, so the history and
 * the state shown with it describe the same moment.
 *
 * claimed → an attempt starts (runner, time); requeued or finished with an attempt number → it ends,
 * with the receipt's status, or "lost" when its runner stopped renewing the lease.
 */
export function attemptHistory(
  events: readonly JournalEventRow[],
  operation: OperationRecord,
  sealer: JournalSealer,
  journalId: string,
): AttemptRecord[] | { reason: string } {
  const attempts = new Map<number, AttemptRecord>();
  let revision = 0;
  for (const event of events) {
    const body = readAuthenticEventBody(event, sealer, journalId, operation.operationId);
    if (body === null) return { reason: `its journal event ${event.seq} does not match its MAC` };
    if (typeof body["revision"] !== "number") return { reason: `its journal event ${event.seq} has no revision` };
    if (body["revision"] > operation.revision) break;
    if (body["revision"] !== revision + 1) return { reason: `its journal events skip from revision ${revision} to ${body["revision"]} (an event was removed)` };
    revision = body["revision"];
    const attempt = body["attempt"];
    if (typeof attempt !== "number") continue;
    if (event.type === "operation_claimed") {
      attempts.set(attempt, {
        operationId: operation.operationId,
        attempt,
        runnerId: text(body["runner"]) ?? "",
        startedMs: event.atMs,
        endedMs: null,
        outcome: null,
        errorCode: null,
        provider: null,
      });
    } else if (event.type === "operation_requeued" || event.type === "operation_finished") {
      const started = attempts.get(attempt);
      if (started !== undefined) attempts.set(attempt, { ...started, endedMs: event.atMs, ...howItEnded(event.type, body) });
    }
  }
  if (revision !== operation.revision) return { reason: `its journal events end at revision ${revision}, not ${operation.revision}` };
  return [...attempts.values()].sort((a, b) => a.attempt - b.attempt);
}

function howItEnded(type: JournalEventRow["type"], body: Record<string, unknown>): Pick<AttemptRecord, "outcome" | "errorCode" | "provider"> {
  if (type === "operation_requeued") return { outcome: text(body["attemptOutcome"]), errorCode: text(body["errorCode"]), provider: text(body["provider"]) };
  if (body["reason"] === "lease_expired") return { outcome: "lost", errorCode: "lease_expired", provider: null };
  const receipt = typeof body["receipt"] === "object" && body["receipt"] !== null ? (body["receipt"] as Record<string, unknown>) : {};
  const error = typeof receipt["error"] === "object" && receipt["error"] !== null ? (receipt["error"] as Record<string, unknown>) : {};
  return { outcome: text(receipt["status"]), errorCode: text(error["code"]), provider: text(receipt["provider"]) };
}

/** A non-empty string, or null. */
function text(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}
