import type { RecoveredLease } from "../store/Store.js";
import type { AttemptReport, RunQueueReport, UnfitOperation } from "../runner/runnerTypes.js";
import type { IntegrityRefusal } from "../store/Store.js";
import type { OperationsService } from "./serviceTypes.js";

/** What one pass of due work did and what it left for the next. */
export interface DuePassReport {
  recovered: RecoveredLease[];
  attempts: AttemptReport[];
  refused: IntegrityRefusal[];
  /** Due operations left queued because their longest attempt did not fit what was left of the budget. */
  unfit: UnfitOperation[];
  stoppedBecause: RunQueueReport["stoppedBecause"];
  /** The queue after the pass: queued (due or delayed), delayed retries, expired leases, and when the first delayed one falls due. */
  remaining: { queued: number; running: number; delayed: number; expiredLeases: number; nextEligibleAt: string | null };
}

/**
 * One pass of due work for a runtime with no long-lived worker pool, run by its interval entry (a
 * scheduled val, `deno task runner`): expire approvals, recover expired leases, then run what is due,
 * one attempt at a time, claiming only an operation whose longest possible attempt ends within the
 * budget (runner/runQueue with deadlineMs; core/decideRequestFit). It is the service's runQueue with
 * a deadline, nothing more, so the pass and the queue tools keep one set of rules. The budget counts
 * from the call and covers everything the pass does; give the platform's limit for the entry less
 * what the entry needs after it.
 */
export async function runDuePass(service: OperationsService, options: { budgetMs: number; signal?: AbortSignal }): Promise<DuePassReport> {
  const deadlineMs = Date.now() + options.budgetMs;
  const report = await service.runQueue({ deadlineMs, ...(options.signal === undefined ? {} : { signal: options.signal }) });
  const { store } = await service.status();
  return {
    recovered: report.recovered,
    attempts: report.attempts,
    refused: report.refused,
    unfit: report.unfit ?? [],
    stoppedBecause: report.stoppedBecause,
    remaining: {
      queued: store.phases.queued,
      running: store.phases.running,
      delayed: store.delayed,
      expiredLeases: store.expiredLeases,
      nextEligibleAt: store.nextEligibleMs === null ? null : new Date(store.nextEligibleMs).toISOString(),
    },
  };
}
