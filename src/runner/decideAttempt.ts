import type { Receipt, ReceiptStatus } from "../receipt/receiptTypes.js";
import { settleWriteStatus } from "../receipt/settleWriteStatus.js";
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
 * - a write is never retried: if it did not run to its end it ends BLOCKED (or CANCELLED) when the
 *   boundary was provably not crossed and UNCERTAIN when it was, whatever the receipt claimed;
 * - everything else finishes with the receipt's status.
 * The receipt is made consistent with the store (identity, attempt number, boundary) and loses the
 * values minimal retention does not keep.
 */
export function decideAttempt(facts: AttemptFacts): AttemptResolution {
  const { operation } = facts;
  const crossed = operation.mutationBoundary === "crossed" || facts.receipt.mutationBoundary === "crossed";
  const { outputs, providerSessionId, ...rest } = facts.receipt;
  const kept = facts.retention === "full" ? { ...(outputs === undefined ? {} : { outputs }), ...(providerSessionId === undefined ? {} : { providerSessionId }) } : {};
  const code = rest.error?.code;
  const write = operation.risk !== "read_only";
  const cancelled = code === "cancelled" && operation.cancelRequested;
  const status = write ? settleWriteStatus(rest.status, { code, cancelled, crossed }) : cancelled && rest.status === "FAIL" ? "CANCELLED" : rest.status;
  const retry = status === "FAIL" ? decideRetry({ risk: operation.risk, receipt: { ...rest, status }, attempts: operation.attempts, maxAttempts: operation.maxAttempts, cancelRequested: operation.cancelRequested }) : undefined;
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
    return { kind: "requeue", delayMs: facts.retryDelayMs, attemptOutcome: status, errorCode: code ?? null, provider: receipt.provider || null, reason: "retry_read_only_failure" };
  }
  return { kind: "finish", phase: phaseForStatus(status), receipt, reason: "attempt_finished" };
}
