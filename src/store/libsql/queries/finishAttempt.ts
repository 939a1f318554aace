import { resolve } from "../../../core/operationTransitions.js";
import { toOperation } from "../../rows/operationRows.js";
import type { AttemptResolution, ClaimedOperation, ClaimRequest, ExpiredLease, FinishResult, LeaseRef, OperationRecord, RecoveredLease } from "../../Store.js";
import type { GuardedWrite } from "../batchGuard.js";
import { applyGuarded, joinWrites } from "../batchGuard.js";
import { journalIdOf } from "../journalIdOf.js";
import type { LibsqlContext } from "../libsqlContext.js";
import { isAuthentic } from "../operationAuthenticity.js";
import { optimisticWrite } from "../optimisticWrite.js";
import { rowsWithLatestEventIn, withLatestEvent } from "../rowWithLatestEvent.js";
import { transitionWrite } from "../transitionWrite.js";
import { claimNext, claimWrite, findClaimable } from "./claimNext.js";
import { selectLeasedRow } from "./leases.js";

/**
 * Ends the attempt the lease token holds with the resolution `decide` gives for the row as read (a
 * runner that lost its lease changes nothing; a row that no longer matches its journal is refused and
 * left alone), and, when asked, claims the next eligible operation in the same batch. Each is guarded
 * on its row as read: when either changed in between (a cancel request landed, another runner took
 * the successor) nothing is written and the whole step is read and decided again, `decide` included.
 * When nothing was eligible before the resolution, the next claim is looked for after it is written
 * (the attempt just requeued without delay may be eligible now).
 */
export async function finishAttempt(
  ctx: LibsqlContext,
  lease: LeaseRef,
  decide: (operation: OperationRecord) => AttemptResolution,
  next?: ClaimRequest,
): Promise<FinishResult> {
  const finished = await optimisticWrite(ctx, `finishing the attempt on ${lease.operationId}`, async () => {
    const journalId = await journalIdOf(ctx);
    const now = ctx.clock();
    const leased = await selectLeasedRow(ctx, lease);
    let applied: AttemptResolution | undefined;
    const writes: GuardedWrite[] = [];
    if (leased !== undefined && isAuthentic(ctx, journalId, leased)) {
      applied = decide(toOperation(leased.row));
      writes.push(transitionWrite(ctx, journalId, leased.row, resolve(toOperation(leased.row), now, applied)).write);
    }
    const successor = next === undefined ? undefined : await findClaimable(ctx, journalId, now, next.onlyOperationId);
    let claimed: ClaimedOperation | undefined;
    if (next !== undefined && successor !== undefined) {
      const claim = claimWrite(ctx, journalId, successor, next.runnerId, next.leaseMs, now);
      writes.push(claim.write);
      claimed = claim.claimed;
    }
    if (writes.length > 0) await applyGuarded(ctx.client, `finishing the attempt on ${lease.operationId}`, joinWrites(...writes));
    return { applied, claimed, lookAgain: next !== undefined && successor === undefined };
  });
  if (next === undefined || !finished.lookAgain) return { applied: finished.applied, next: finished.claimed };
  return { applied: finished.applied, next: await claimNext(ctx, next.runnerId, next.leaseMs, next.onlyOperationId) };
}

/**
 * Resolves running operations whose lease expired: their runner stopped renewing (crash, kill,
 * partition). The attempt is recorded as lost; `decide` says what becomes of the operation. All are
 * written in one batch guarded on every row as read, so a heartbeat that lands first wins (the batch
 * is refused and the expiry judged again). A row that does not match its journal is refused
 * (reported, left alone) and takes its place in the batch, so a caller that stops at a short batch
 * never loops on it.
 */
export function recoverExpiredLeases(ctx: LibsqlContext, decide: (expired: ExpiredLease) => AttemptResolution, limit: number): Promise<RecoveredLease[]> {
  return optimisticWrite(ctx, "recovering expired leases", async () => {
    const journalId = await journalIdOf(ctx);
    const now = ctx.clock();
    const expired = rowsWithLatestEventIn(
      await ctx.client.execute(
        withLatestEvent(
          "SELECT * FROM operations WHERE phase = 'running' AND lease_expires_ms < ? ORDER BY lease_expires_ms LIMIT ?",
          "o.lease_expires_ms",
          now,
          limit,
        ),
      ),
    );
    const recovered: RecoveredLease[] = [];
    const writes: GuardedWrite[] = [];
    for (const read of expired) {
      if (!isAuthentic(ctx, journalId, read)) continue;
      const resolution = decide({ operation: toOperation(read.row), taskJson: read.row.task_json });
      const written = transitionWrite(ctx, journalId, read.row, resolve(toOperation(read.row), now, resolution));
      writes.push(written.write);
      recovered.push({ operationId: read.row.operation_id, resolution: resolution.kind, phase: written.row.phase as RecoveredLease["phase"] });
    }
    if (writes.length > 0) await applyGuarded(ctx.client, "recovering expired leases", joinWrites(...writes));
    return recovered;
  });
}
