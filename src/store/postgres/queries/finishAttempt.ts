import type { AttemptResolution, ClaimRequest, ExpiredLease, FinishResult, LeaseRef, OperationRecord, RecoveredLease } from "../../Store.js";
import { randomUUID } from "node:crypto";
import { claim, resolve } from "../../../core/operationTransitions.js";
import type { OperationRow } from "../../rows/operationRows.js";
import { toOperation } from "../../rows/operationRows.js";
import type { TransitionOf } from "../applyTransition.js";
import { applyTransition, applyTransitions } from "../applyTransition.js";
import { isAuthentic } from "../authenticRow.js";
import type { PgTx } from "../pgContext.js";
import { claimableQuery, claimedOperation, claimNext, pickClaimable } from "./claimNext.js";
import { leasedRowQuery } from "./operationRowPg.js";
import { selectRowsWithLatestEvent, selectTwoWithLatestEvent } from "./rowWithLatestEvent.js";

/** Ends the current attempt of a locked running row as `resolution` says (operationTransitions.resolve). */
function applyResolution(tx: PgTx, row: OperationRow, resolution: AttemptResolution): Promise<OperationRow> {
  return applyTransition(tx, row, resolve(toOperation(row), tx.now, resolution));
}

/**
 * Ends the attempt the lease token holds with the resolution `decide` gives for the row as it is
 * now (locked: a cancel that committed a moment ago is seen; a runner that lost its lease changes
 * nothing; a row that no longer matches its journal is refused and left alone), then, when asked,
 * claims the next eligible operation in the same transaction.
 */
export async function finishAttempt(
  tx: PgTx,
  lease: LeaseRef,
  decide: (operation: OperationRecord) => AttemptResolution,
  next?: ClaimRequest,
): Promise<FinishResult> {
  // The leased row and (when asked) the successor's first candidate, both locked, in one statement;
  // every read and row lock comes before the writes.
  const [leasedSql, leasedValues] = leasedRowQuery(lease.operationId, lease.token);
  const [nextSql, nextValues] = claimableQuery(tx, next?.onlyOperationId);
  const read =
    next === undefined
      ? { first: await selectRowsWithLatestEvent(tx, leasedSql, leasedValues), second: [] }
      : await selectTwoWithLatestEvent(tx, { sql: leasedSql, values: leasedValues }, { sql: nextSql, values: nextValues });
  const leased = read.first[0];
  const row = leased?.row;
  const authentic = leased !== undefined && (await isAuthentic(tx, leased.row, leased));
  const successor = next === undefined ? undefined : await pickClaimable(tx, next.onlyOperationId, read.second[0] ?? "none");
  let applied: AttemptResolution | undefined;
  const writes: TransitionOf[] = [];
  if (row !== undefined && authentic) {
    applied = decide(toOperation(row));
    writes.push({ row, transition: resolve(toOperation(row), tx.now, applied) });
  }
  if (next === undefined || successor === undefined) {
    if (writes.length > 0) await applyTransitions(tx, writes);
    if (next === undefined) return { applied, next: undefined };
    // Nothing was eligible before the resolution; the attempt just requeued (without delay) may be now.
    return { applied, next: await claimNext(tx, next.runnerId, next.leaseMs, next.onlyOperationId) };
  }
  // The resolution and the successor's claim: one statement.
  const token = randomUUID();
  writes.push({ row: successor, transition: claim(toOperation(successor), tx.now, { runnerId: next.runnerId, leaseMs: next.leaseMs }), leaseToken: token });
  const claimed = (await applyTransitions(tx, writes)).at(-1);
  if (claimed === undefined) throw new Error("applyTransitions returned no row");
  return { applied, next: claimedOperation(claimed, token) };
}

/**
 * Resolves running operations whose lease expired on the database clock: their runner stopped
 * renewing (crash, kill, partition). Rows another process is recovering or renewing right now are
 * skipped (SKIP LOCKED); the expiry is judged on the locked row, so a heartbeat that committed first
 * wins. A row that does not match its journal is refused (reported, left alone).
 */
export async function recoverExpiredLeases(tx: PgTx, decide: (expired: ExpiredLease) => AttemptResolution, limit: number): Promise<RecoveredLease[]> {
  const rows = await selectRowsWithLatestEvent(
    tx,
    "SELECT * FROM operations WHERE phase = 'running' AND lease_expires_ms < $1 ORDER BY lease_expires_ms LIMIT $2 FOR UPDATE SKIP LOCKED",
    [tx.now, limit],
  );
  const recovered: RecoveredLease[] = [];
  for (const { row, latest } of rows) {
    if (!(await isAuthentic(tx, row, { latest }))) continue;
    const resolution = decide({ operation: toOperation(row), taskJson: row.task_json });
    const next = await applyResolution(tx, row, resolution);
    recovered.push({ operationId: row.operation_id, resolution: resolution.kind, phase: next.phase as RecoveredLease["phase"] });
  }
  return recovered;
}
