import { claim } from "../../../core/operationTransitions.js";
import { toOperation } from "../../rows/operationRows.js";
import type { ClaimedOperation } from "../../Store.js";
import type { GuardedWrite } from "../batchGuard.js";
import { applyGuarded } from "../batchGuard.js";
import { journalIdOf } from "../journalIdOf.js";
import type { LibsqlContext } from "../libsqlContext.js";
import { isAuthentic } from "../operationAuthenticity.js";
import { optimisticWrite } from "../optimisticWrite.js";
import type { RowWithLatestEvent } from "../rowWithLatestEvent.js";
import { rowsWithLatestEventIn, withLatestEvent } from "../rowWithLatestEvent.js";
import { transitionWrite } from "../transitionWrite.js";
import { queryRow } from "../libsqlRows.js";

/**
 * Candidates read per page after the first. The first page is one row: the oldest candidate is
 * almost always authentic. Later pages are read only when rows were refused.
 */
const CANDIDATES = 8;

/**
 * The oldest eligible queued operation whose row matches its latest journal event (or only
 * `onlyOperationId`, when given); rows edited behind errand's back are skipped and reported
 * (Store.takeIntegrityRefusals). A read: the claim that follows is guarded on what it returns.
 */
export async function findClaimable(ctx: LibsqlContext, journalId: string, now: number, onlyOperationId?: string): Promise<RowWithLatestEvent | undefined> {
  if (onlyOperationId !== undefined) {
    const only = rowsWithLatestEventIn(
      await ctx.client.execute(
        withLatestEvent("SELECT * FROM operations WHERE phase = 'queued' AND run_after_ms <= ? AND operation_id = ?", "", now, onlyOperationId),
      ),
    )[0];
    return only !== undefined && isAuthentic(ctx, journalId, only) ? only : undefined;
  }
  for (let offset = 0; ;) {
    const limit = offset === 0 ? 1 : CANDIDATES;
    const page = rowsWithLatestEventIn(
      await ctx.client.execute(
        withLatestEvent(
          "SELECT * FROM operations WHERE phase = 'queued' AND run_after_ms <= ? ORDER BY run_after_ms, created_ms, operation_id LIMIT ? OFFSET ?",
          "o.run_after_ms, o.created_ms, o.operation_id",
          now,
          limit,
          offset,
        ),
      ),
    );
    const found = page.find((candidate) => isAuthentic(ctx, journalId, candidate));
    if (found !== undefined) return found;
    if (page.length < limit) return undefined;
    offset += limit;
  }
}

/** The claim of a candidate findClaimable returned: running, one more attempt, a fresh lease token that fences every later write of this attempt. */
export function claimWrite(
  ctx: LibsqlContext,
  journalId: string,
  candidate: RowWithLatestEvent,
  runnerId: string,
  leaseMs: number,
  now: number,
): { write: GuardedWrite; claimed: ClaimedOperation } {
  const token = crypto.randomUUID();
  const { write, row } = transitionWrite(ctx, journalId, candidate.row, claim(toOperation(candidate.row), now, { runnerId, leaseMs }), token);
  return { write, claimed: { operation: toOperation(row), taskJson: row.task_json, lease: { operationId: row.operation_id, token }, attempt: row.attempts } };
}

/**
 * Claims the next eligible operation: found by a read, claimed by a batch guarded on the row as read,
 * so two runners that found the same row cannot both claim it (the loser's batch is refused whole,
 * and it looks again).
 */
export function claimNext(ctx: LibsqlContext, runnerId: string, leaseMs: number, onlyOperationId?: string): Promise<ClaimedOperation | undefined> {
  return optimisticWrite(ctx, "claiming the next operation", async () => {
    const journalId = await journalIdOf(ctx);
    const now = ctx.clock();
    const candidate = await findClaimable(ctx, journalId, now, onlyOperationId);
    if (candidate === undefined) return undefined;
    const { write, claimed } = claimWrite(ctx, journalId, candidate, runnerId, leaseMs, now);
    await applyGuarded(ctx.client, `claiming operation ${candidate.row.operation_id}`, write);
    return claimed;
  });
}

/** The earliest run_after_ms among queued operations, or null. */
export async function nextQueuedMs(ctx: LibsqlContext): Promise<number | null> {
  return (await queryRow<{ next: number | null }>(ctx.client, "SELECT min(run_after_ms) AS next FROM operations WHERE phase = 'queued'"))?.next ?? null;
}
