import { authenticateOperationState, readAuthenticEventBody } from "../journal/authenticateOperationState.js";
import type { JournalSealer } from "../journal/createJournalSealer.js";
import type { OperationTombstone } from "../journal/journalTypes.js";
import type { Receipt } from "../receipt/receiptTypes.js";
import { upgradeStoredReceipt } from "../receipt/upgradeStoredReceipt.js";
import type { OperationPhase, OperationRecord, OperationView } from "../store/Store.js";
import { isTerminalPhase, operationState } from "../store/Store.js";
import type { MutationBoundary } from "../receipt/receiptTypes.js";
import type { Handle } from "./handle.js";
import { makeHandle } from "./handle.js";
import type { ServiceFailure } from "./serviceTypes.js";

export type AuthenticatedView =
  | { kind: "live"; operation: OperationRecord; handle: Handle; receipt: Receipt | undefined }
  | { kind: "compacted"; tombstone: OperationTombstone; handle: Handle };

/**
 * Checks an operation's stored row against the journal before anything is reported from it: the
 * latest event of the operation must carry a valid MAC and state exactly what the row says
 * (authenticateOperationState: revision, phase, boundary, attempts, digest, risk, cancel), and a terminal operation's receipt is read from its
 * own authenticated event. A row edited behind errand's back is refused as journal_tampered. Checking
 * one event is not a chain proof: `errand journal verify` is.
 */
export function authenticateView(view: OperationView, sealer: JournalSealer, journalId: string): AuthenticatedView | ServiceFailure {
  if (view.kind === "compacted") {
    const { mac, ...fields } = view.tombstone;
    if (!sealer.macEquals(sealer.tombstoneMac(journalId, fields), mac)) return tampered(view.tombstone.operationId, "its tombstone does not match its MAC");
    const t = view.tombstone;
    return {
      kind: "compacted",
      tombstone: t,
      handle: makeHandle({
        operationId: t.operationId,
        requestDigest: t.requestDigest,
        revision: t.revision,
        phase: t.phase as OperationPhase,
        mutationBoundary: t.mutationBoundary as MutationBoundary,
      }),
    };
  }
  const { operation } = view;
  const state = authenticateOperationState(operationState(operation), view.latestEvent, sealer, journalId);
  if (!state.ok) return tampered(operation.operationId, state.reason);
  let receipt: Receipt | undefined;
  if (isTerminalPhase(operation.phase)) {
    const body = readAuthenticEventBody(view.receiptEvent, sealer, journalId, operation.operationId);
    const candidate = body?.["receipt"] as Receipt | undefined;
    if (body === null || view.receiptEvent?.type !== "operation_finished" || typeof candidate !== "object" || candidate.status !== operation.receiptStatus) {
      return tampered(operation.operationId, "its receipt is missing from the journal or does not match its MAC");
    }
    // Authentic as stored; a receipt written before page text was wrapped where it is made is read into the wrapped shape.
    receipt = upgradeStoredReceipt(candidate);
  }
  return { kind: "live", operation, handle: makeHandle(operation), receipt };
}

export function tampered(operationId: string, what: string): ServiceFailure {
  return {
    ok: false,
    code: "journal_tampered",
    message: `Operation ${operationId} cannot be trusted: ${what}. Nothing is reported from it; run "errand journal verify" to find the first bad event.`,
  };
}
