import { decideExpiredLease } from "./decideExpiredLease.js";
import { runAttempt } from "./runAttempt.js";
import { claimFitting } from "./claimFitting.js";
import type { AttemptReport, RunnerDeps, RunQueueOptions, RunQueueReport, UnfitOperation } from "./runnerTypes.js";
import type { ClaimedOperation, IntegrityRefusal, RecoveredLease } from "../store/Store.js";

/** A run with a deadline claims each operation on its own (claimFitting), never fused with a resolution. */
const noFusedClaim = (): Promise<boolean> => Promise.resolve(false);

/** Expired leases resolved per recovery transaction. */
const RECOVERY_BATCH = 100;

/**
 * Collects the operations the store refused since it was last asked (rows that do not match their
 * journal) and tells whoever watches; each is reported once per run of the queue.
 */
export function collectRefusals(deps: RunnerDeps, into: IntegrityRefusal[]): void {
  for (const refusal of deps.store.takeIntegrityRefusals()) {
    if (into.some((known) => known.operationId === refusal.operationId)) continue;
    into.push(refusal);
    deps.onEvent?.({ kind: "refused", operationId: refusal.operationId, code: "journal_tampered", reason: refusal.reason });
  }
}

/** Resolves every expired lease (see decideExpiredLease), in short batches. */
export async function recoverExpiredLeases(deps: RunnerDeps): Promise<RecoveredLease[]> {
  const recovered: RecoveredLease[] = [];
  for (;;) {
    const now = new Date(await deps.store.now());
    const batch = await deps.store.recoverExpiredLeases((expired) => decideExpiredLease(expired, now), RECOVERY_BATCH);
    for (const item of batch) deps.onEvent?.({ kind: "recovered", ...item });
    recovered.push(...batch);
    if (batch.length < RECOVERY_BATCH) return recovered;
  }
}

/**
 * One explicit run of the queue: first recover expired leases, then claim and run eligible
 * operations one at a time until none is eligible, `max` attempts ran, the budget is spent or the
 * signal is aborted. Each attempt's resolution and the next claim share one transaction. Leases of
 * other runners are re-checked every heartbeat period along the way. Operations waiting for a retry
 * delay are not eligible yet; they wait for the next run. An operation whose row does not match
 * its journal is never claimed, resumed or recovered; it is listed in `refused` (journal_tampered).
 * With `deadlineMs`, each claim takes only an operation whose longest possible attempt ends by then
 * (claimFitting), so the claim is not fused with the previous attempt's resolution; the others stay
 * queued and are listed in `unfit`.
 */
export async function runQueue(allDeps: RunnerDeps, options: RunQueueOptions = {}): Promise<RunQueueReport> {
  const deps = options.onlyOperationId === undefined ? allDeps : { ...allDeps, onlyOperationId: options.onlyOperationId };
  const started = Date.now();
  const recovered = await recoverExpiredLeases(deps);
  let lastRecovery = Date.now();
  const attempts: AttemptReport[] = [];
  const refused: IntegrityRefusal[] = [];
  collectRefusals(deps, refused);
  let stoppedBecause: RunQueueReport["stoppedBecause"] = "drained";

  /** Whether to claim another operation now (recovering expired leases first when that is due). */
  const wantsNext = async (): Promise<boolean> => {
    const done = attempts.length + (claimed === undefined ? 0 : 1);
    if (options.signal?.aborted === true) stoppedBecause = "aborted";
    else if (options.max !== undefined && done >= options.max) stoppedBecause = "max";
    else if (options.budgetMs !== undefined && Date.now() - started >= options.budgetMs) stoppedBecause = "budget";
    else if (options.deadlineMs !== undefined && Date.now() >= options.deadlineMs) stoppedBecause = "budget";
    else {
      if (Date.now() - lastRecovery >= deps.config.heartbeatMs) {
        recovered.push(...(await recoverExpiredLeases(deps)));
        lastRecovery = Date.now();
      }
      return true;
    }
    return false;
  };

  const deadlineMs = options.deadlineMs;
  const unfit: UnfitOperation[] = [];
  const claimAnother = async (): Promise<ClaimedOperation | undefined> => {
    if (!(await wantsNext())) return undefined;
    return deadlineMs === undefined ? deps.store.claimNext(deps.runnerId, deps.config.leaseMs, deps.onlyOperationId) : claimFitting(deps, deadlineMs, unfit);
  };
  let claimed: ClaimedOperation | undefined;
  claimed = await claimAnother();
  while (claimed !== undefined) {
    deps.onEvent?.({ kind: "claimed", operationId: claimed.operation.operationId, attempt: claimed.attempt });
    collectRefusals(deps, refused);
    const run = await runAttempt(deps, claimed, deadlineMs === undefined ? wantsNext : noFusedClaim);
    attempts.push(run.report);
    collectRefusals(deps, refused);
    if (deadlineMs === undefined) claimed = run.next;
    else {
      // The finished attempt is in `attempts` now; wantsNext would count a claim still in hand twice.
      claimed = undefined;
      claimed = await claimAnother();
    }
    if (claimed === undefined && stoppedBecause === "drained" && options.signal?.aborted === true) stoppedBecause = "aborted";
  }
  collectRefusals(deps, refused);
  return { recovered, attempts, refused, stoppedBecause, ...(deadlineMs === undefined ? {} : { unfit }) };
}
