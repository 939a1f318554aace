import type { OperationPhase, StoreStatus } from "../../Store.js";
import { OPERATION_PHASES } from "../../Store.js";
import { headIn, SELECT_HEAD } from "../journalHead.js";
import type { LibsqlContext } from "../libsqlContext.js";
import { statement } from "../LibsqlClientLike.js";
import { firstRowIn, rowsIn } from "../libsqlRows.js";

/** Counts for `errand status` (operations per phase, expired leases, delayed retries, journal size), read in one snapshot. */
export async function status(ctx: LibsqlContext, schemaVersion: number): Promise<StoreStatus> {
  const now = ctx.clock();
  const [phaseResult, expiredResult, delayedResult, tombstoneResult, headResult, lastResult, usageResult] = await ctx.client.batch(
    [
      statement("SELECT phase, count(*) AS n FROM operations GROUP BY phase"),
      statement("SELECT count(*) AS n FROM operations WHERE phase = 'running' AND lease_expires_ms < ?", now),
      statement("SELECT count(*) AS n, min(run_after_ms) AS next FROM operations WHERE phase = 'queued' AND run_after_ms > ?", now),
      statement("SELECT count(*) AS n FROM operation_tombstones"),
      SELECT_HEAD,
      statement("SELECT max(seq) AS seq FROM journal_events"),
      statement("SELECT coalesce(sum(stored_bytes), 0) AS n FROM operations"),
    ],
    "read",
  );
  const phases = Object.fromEntries(OPERATION_PHASES.map((phase) => [phase, 0])) as Record<OperationPhase, number>;
  for (const row of rowsIn<{ phase: OperationPhase; n: number }>(phaseResult)) phases[row.phase] = row.n;
  const delayed = firstRowIn<{ n: number; next: number | null }>(delayedResult);
  const head = headIn(headResult);
  return {
    phases,
    expiredLeases: firstRowIn<{ n: number }>(expiredResult)?.n ?? 0,
    delayed: delayed?.n ?? 0,
    nextEligibleMs: delayed?.next ?? null,
    tombstones: firstRowIn<{ n: number }>(tombstoneResult)?.n ?? 0,
    journalSeq: firstRowIn<{ seq: number | null }>(lastResult)?.seq ?? 0,
    storedBytes: head === undefined ? 0 : head.storedBytes + (firstRowIn<{ n: number }>(usageResult)?.n ?? 0),
    schemaVersion,
  };
}
