import type { OperationPhase, StoreStatus } from "../../Store.js";
import { OPERATION_PHASES } from "../../Store.js";
import { journalUsage, selectHead } from "../journalHeadSql.js";
import type { SqliteContext } from "../sqliteContext.js";

/** Counts for `errand status`: operations per phase, expired leases, delayed retries, journal size. */
export function status(ctx: SqliteContext, schemaVersion: number): StoreStatus {
  const now = ctx.clock();
  const phases = Object.fromEntries(OPERATION_PHASES.map((phase) => [phase, 0])) as Record<OperationPhase, number>;
  for (const row of ctx.sql("SELECT phase, count(*) AS n FROM operations GROUP BY phase").all() as { phase: OperationPhase; n: number }[]) {
    phases[row.phase] = row.n;
  }
  const expired = ctx.sql("SELECT count(*) AS n FROM operations WHERE phase = 'running' AND lease_expires_ms < ?").get(now) as { n: number };
  const delayed = ctx.sql("SELECT count(*) AS n, min(run_after_ms) AS next FROM operations WHERE phase = 'queued' AND run_after_ms > ?").get(now) as {
    n: number;
    next: number | null;
  };
  const tombstones = ctx.sql("SELECT count(*) AS n FROM operation_tombstones").get() as { n: number };
  const head = selectHead(ctx);
  const last = ctx.sql("SELECT max(seq) AS seq FROM journal_events").get() as { seq: number | null };
  return {
    phases,
    expiredLeases: expired.n,
    delayed: delayed.n,
    nextEligibleMs: delayed.next,
    tombstones: tombstones.n,
    journalSeq: last.seq ?? 0,
    storedBytes: head === undefined ? 0 : journalUsage(ctx, head),
    schemaVersion,
  };
}
