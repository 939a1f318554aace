import { runDuePass } from "../../operations/runDuePass.js";
import type { DuePassReport } from "../../operations/runDuePass.js";
import type { HostedOptions } from "./openHostedErrand.js";
import { openHostedErrand } from "./openHostedErrand.js";

/** What one pass of the interval entry did, in counts (no task content), and what it left for the next. */
export interface DueWorkReport {
  recovered: number;
  attempts: number;
  /** Due operations left queued because their longest attempt would not end within the budget. */
  unfit: number;
  stoppedBecause: DuePassReport["stoppedBecause"];
  remaining: DuePassReport["remaining"];
  compacted: number;
}

/** The pass's own limit when the caller gives none: well inside a minute-long platform run. */
export const DEFAULT_DUE_WORK_BUDGET_MS = 50_000;

/**
 * The interval entry of a host where nothing outlives a request (a Val Town interval val, `deno
 * task runner`): one pass (operations/runDuePass) that recovers expired leases and runs what is due
 * (queued tasks, retries whose delay has passed), each only when its longest attempt ends within
 * the budget; then it purges expired tokens and, when
 * ERRAND_COMPACT_AFTER allows, compacts the journal. It runs only when the owner sets it up: errand
 * schedules nothing on its own.
 */
export async function runDueWork(options: HostedOptions & { budgetMs?: number }): Promise<DueWorkReport> {
  const errand = await openHostedErrand(options);
  try {
    const report = await runDuePass(errand.service, { budgetMs: options.budgetMs ?? DEFAULT_DUE_WORK_BUDGET_MS });
    await errand.accessTables().access.purgeExpired(Date.now());
    const compactAfterMs = errand.config.compactAfterMs;
    const compaction = compactAfterMs === null ? null : await errand.service.compactJournal({ olderThanMs: compactAfterMs });
    const compacted = compaction?.ok === true ? compaction.operations : 0;
    return {
      recovered: report.recovered.length,
      attempts: report.attempts.length,
      unfit: report.unfit.length,
      stoppedBecause: report.stoppedBecause,
      remaining: report.remaining,
      compacted,
    };
  } finally {
    await errand.close();
  }
}
