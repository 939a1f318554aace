import { formatDuration } from "../config/formatDuration.js";
import { ErrandError } from "../errors/errandError.js";
import type { CompactionRun } from "../operations/compactionSchedule.js";
import type { HttpLogger } from "../interfaces/http/httpLogger.js";
import type { ErrandMetrics } from "../interfaces/http/observability/errandMetrics.js";

/**
 * How `errand serve` tells the operator about each scheduled compaction: one info line when it
 * compacted something (counts, bytes, time taken), a debug line when there was nothing old enough,
 * an error line when the journal did not verify (nothing was compacted: a tampered journal is
 * evidence) or the store failed; and the compaction counters on /metrics.
 */
export function compactionReporter(logger: HttpLogger, metrics: ErrandMetrics | undefined, afterMs: number): (run: CompactionRun) => void {
  const compactAfter = formatDuration(afterMs);
  return (run) => {
    if (run.outcome === "compacted") {
      const { operations, eventsRemoved, bytesFreed, storedBytes, artifactsDeleted } = run.report;
      metrics?.recordCompaction("compacted", operations);
      const fields = { compactAfter, operations, eventsRemoved, bytesFreed, storedBytes, artifactsDeleted, ms: run.ms };
      if (operations > 0 || eventsRemoved > 0) logger.info("journal compacted", fields);
      else logger.debug("journal compaction: nothing finished long enough ago", fields);
      return;
    }
    metrics?.recordCompaction(run.outcome, 0);
    if (run.outcome === "refused") logger.error("Journal compaction refused; nothing was compacted", new ErrandError(run.code, run.message));
    else logger.error("Journal compaction failed; it runs again within the hour", run.error);
  };
}
