import type { Receipt, ReceiptStatus } from "../receipt/receiptTypes.js";
import { decideStatus } from "../receipt/decideStatus.js";
import type { AttemptEnd } from "../receipt/decideStatus.js";
import type { EvidenceRetention } from "../task/taskTypes.js";
import { decideRetry } from "./decideRetry.js";
import type { AttemptResolution, OperationRecord, TerminalPhase } from "../store/Store.js";

/** Receipt status → the phase an operation ends in. */
export function phaseForStatus(status: ReceiptStatus): TerminalPhase {
  switch (status) {
    case "PASS":
    case "PARTIAL":
    case "FAIL":
      return "completed";
    case "BLOCKED":
      return "blocked";
    case "UNCERTAIN":
      return "uncertain";
    case "CANCELLED":
      return "cancelled";
  }
}

export interface AttemptFacts {
  /** The operation as the store holds it at the moment the attempt is resolved. */
  operation: OperationRecord;
  receipt: Receipt;
  /** The task's evidenceRetention: outputs and the provider session id stay only with "full". */
  retention: EvidenceRetention;
  retryDelayMs: number;
}

/**
 * What becomes of an operation after an attempt returned a receipt:
 * - a read_only FAIL that another attempt could change (decideRetry), with attempts left and no
 *   cancel pending, goes back to the queue after the retry delay; the receipt of every FAIL says
 *   whether it was retried and why (receipt.retry);
 * - a write is never retried;
 * - the status is decided again (decideStatus) with the store's boundary as well as the receipt's,
 *   so a write that did not run to its end is UNCERTAIN once either knows it crossed, whatever the
 *   receipt claimed.
 * The receipt is made consistent with the store (identity, attempt number, boundary) and loses the
 * values minimal retention does not keep.
 */
export function decideAttempt(facts: AttemptFacts): AttemptResolution {
  const { operation } = facts;
  const crossed = operation.mutationBoundary === "crossed" || facts.receipt.mutationBoundary === "crossed";
  const { outputs, providerSessionId, ...rest } = facts.receipt;
  const kept =
    facts.retention === "full" ? { ...(outputs === undefined ? {} : { outputs }), ...(providerSessionId === undefined ? {} : { providerSessionId }) } : {};
  const code = rest.error?.code;
  const status = decideStatus({ write: operation.risk !== "read_only", crossed, end: endOfReceipt(facts.receipt) });
  const retry =
    status === "FAIL"
      ? decideRetry({
          risk: operation.risk,
          receipt: { ...rest, status },
          attempts: operation.attempts,
          maxAttempts: operation.maxAttempts,
          cancelRequested: operation.cancelRequested,
        })
      : undefined;
  const receipt: Receipt = {
    ...rest,
    ...kept,
    ...(retry === undefined ? {} : { retry }),
    status,
    operationId: operation.operationId,
    requestDigest: operation.requestDigest,
    attempts: operation.attempts,
    mutationBoundary: crossed ? "crossed" : "not_crossed",
    evidenceRetention: facts.retention,
  };
  if (retry?.decision === "retry") {
    return {
      kind: "requeue",
      delayMs: facts.retryDelayMs,
      attemptOutcome: status,
      errorCode: code ?? null,
      provider: receipt.provider || null,
      reason: "retry_read_only_failure",
    };
  }
  return { kind: "finish", phase: phaseForStatus(status), receipt, reason: "attempt_finished" };
}

/**
 * How the attempt ended, read from the executor's receipt: its error, the checks it made, and a
 * BLOCKED it decided from evidence the runner does not have (a refusal before any browser, a check
 * before the first change), which says nothing was done.
 */
function endOfReceipt(receipt: Receipt): AttemptEnd {
  if (receipt.status === "BLOCKED") return { kind: "untouched" };
  const code = receipt.error?.code;
  if (code === undefined) return { kind: "ran", expectations: receipt.checks.length, held: receipt.checks.filter((check) => check.passed).length };
  return code === "cancelled" ? { kind: "cancelled" } : { kind: "stopped", code };
}
