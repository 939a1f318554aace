import { decideStatus } from "../receipt/decideStatus.js";
import type { AttemptEnd } from "../receipt/decideStatus.js";
import type { ReceiptStatus } from "../receipt/receiptTypes.js";
import type { AttemptResolution, ExpiredLease } from "../store/Store.js";
import { phaseForStatus } from "./decideAttempt.js";
import { readStoredTask } from "./readStoredTask.js";
import { synthesizeReceipt } from "./synthesizeReceipt.js";

/**
 * Who found the lease expired: "recovery" (any runner's lease recovery, which cannot tell a crashed
 * runner from a live one starved of CPU), or "own_runner" (the runner of the attempt itself, alive,
 * whose renewal or boundary crossing the store refused because the lease had run out).
 */
export type ExpiryWitness = "recovery" | "own_runner";

/**
 * What becomes of an operation whose lease ran out without renewal (the attempt counts):
 * - read_only with attempts left and no cancel pending: back to the queue, eligible at once;
 * - read_only otherwise: FAIL (or CANCELLED when a cancel was pending);
 * - a write past its mutation boundary: UNCERTAIN, never retried;
 * - a write before it: BLOCKED (or CANCELLED). The boundary is recorded durably before the
 *   executor may dispatch the first mutating step, so "not crossed" here is proven, not assumed.
 */
export function decideExpiredLease(expired: ExpiredLease, now: Date, witness: ExpiryWitness = "recovery"): AttemptResolution {
  const { operation } = expired;
  const crossed = operation.mutationBoundary === "crossed";
  if (operation.risk === "read_only" && operation.attempts < operation.maxAttempts && !operation.cancelRequested) {
    return { kind: "requeue", delayMs: 0, attemptOutcome: "lost", errorCode: "lease_expired", provider: null, reason: "lease_expired" };
  }
  const lost =
    witness === "recovery"
      ? `The lease of attempt ${operation.attempts} ran out without renewal (its runner crashed, was killed, lost the database, or was alive but starved of CPU for longer than the lease)`
      : `The runner of attempt ${operation.attempts} was alive, but its lease ran out before it could renew it (starved of CPU or slow to reach the store for longer than the lease), so it stopped the attempt`;
  const end: AttemptEnd = operation.cancelRequested ? { kind: "cancelled" } : { kind: "stopped", code: "lease_expired" };
  const status = decideStatus({ write: operation.risk !== "read_only", crossed, end });
  const why: Record<ReceiptStatus, string> = {
    UNCERTAIN: `${lost} after the write crossed its mutation boundary: the change may or may not have happened. Check the site before acting again; errand will not retry it.`,
    CANCELLED: `${lost} while a cancel was pending; nothing was changed on the site.`,
    FAIL: `${lost}, and no attempts are left (${operation.attempts} of ${operation.maxAttempts}).`,
    BLOCKED: `${lost} before the write reached its mutation boundary: nothing was changed on the site. Submit it again with a new operationId to retry.`,
    PASS: lost,
    PARTIAL: lost,
  };
  const receipt = synthesizeReceipt({
    operationId: operation.operationId,
    requestDigest: operation.requestDigest,
    task: readStoredTask(expired.taskJson),
    risk: operation.risk,
    end,
    error: { code: status === "CANCELLED" ? "cancelled" : "lease_expired", message: why[status] },
    attempts: operation.attempts,
    mutationBoundary: operation.mutationBoundary,
    provider: "",
    steps: "unknown",
    startedAt: now,
  });
  return { kind: "finish", phase: phaseForStatus(status), receipt, reason: "lease_expired" };
}
