import { decideExpiredLease } from "./decideExpiredLease.js";
import { runAttempt } from "./runAttempt.js";
import type { AttemptReport, RunnerDeps, RunQueueOptions, RunQueueReport } from "./runnerTypes.js";
import type { RecoveredLease } from "../store/Store.js";

/** Expired leases resolved per recovery transaction. */
const RECOVERY_BATCH = 100;

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
 * signal is aborted. Leases of other runners are re-checked every heartbeat period along the way.
 * Operations waiting for a retry delay are not eligible yet; they wait for the next run.
 */
export async function runQueue(deps: RunnerDeps, options: RunQueueOptions = {}): Promise<RunQueueReport> {
  const started = Date.now();
  const recovered = await recoverExpiredLeases(deps);
  let lastRecovery = Date.now();
  const attempts: AttemptReport[] = [];
  for (;;) {
    if (options.signal?.aborted === true) return { recovered, attempts, stoppedBecause: "aborted" };
    if (options.max !== undefined && attempts.length >= options.max) return { recovered, attempts, stoppedBecause: "max" };
    if (options.budgetMs !== undefined && Date.now() - started >= options.budgetMs) return { recovered, attempts, stoppedBecause: "budget" };
    if (Date.now() - lastRecovery >= deps.config.heartbeatMs) {
      recovered.push(...(await recoverExpiredLeases(deps)));
      lastRecovery = Date.now();
    }
    const claimed = await deps.store.claimNext(deps.runnerId, deps.config.leaseMs);
    if (claimed === undefined) return { recovered, attempts, stoppedBecause: "drained" };
    deps.onEvent?.({ kind: "claimed", operationId: claimed.operation.operationId, attempt: claimed.attempt });
    attempts.push(await runAttempt(deps, claimed));
  }
}
