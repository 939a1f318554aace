import type { OperationPhase, StoreStatus } from "../../Store.js";
import { OPERATION_PHASES } from "../../Store.js";
import { journalUsage, selectHead } from "../journalHeadPg.js";
import type { PgTx } from "../pgContext.js";

/** Counts for `errand status`: operations per phase, expired leases, delayed retries, journal size. */
export async function status(tx: PgTx, schemaVersion: number): Promise<StoreStatus> {
  const phases = Object.fromEntries(OPERATION_PHASES.map((phase) => [phase, 0])) as Record<OperationPhase, number>;
  for (const row of await tx.rows<{ phase: OperationPhase; n: number }>("SELECT phase, count(*) AS n FROM operations GROUP BY phase"))
    phases[row.phase] = row.n;
  const expired = await tx.one<{ n: number }>("SELECT count(*) AS n FROM operations WHERE phase = 'running' AND lease_expires_ms < $1", [tx.now]);
  const delayed = await tx.one<{ n: number; next: number | null }>(
    "SELECT count(*) AS n, min(run_after_ms) AS next FROM operations WHERE phase = 'queued' AND run_after_ms > $1",
    [tx.now],
  );
  const tombstones = await tx.one<{ n: number }>("SELECT count(*) AS n FROM operation_tombstones");
  const head = await selectHead(tx);
  const last = await tx.one<{ seq: number | null }>("SELECT max(seq) AS seq FROM journal_events");
  return {
    phases,
    expiredLeases: expired?.n ?? 0,
    delayed: delayed?.n ?? 0,
    nextEligibleMs: delayed?.next ?? null,
    tombstones: tombstones?.n ?? 0,
    journalSeq: last?.seq ?? 0,
    storedBytes: head === undefined ? 0 : await journalUsage(tx),
    schemaVersion,
  };
}
