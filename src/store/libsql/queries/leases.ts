import { leaseCheckOf } from "../../rows/leaseCheckOf.js";
import type { LeaseCheck, LeaseRef } from "../../Store.js";
import type { LibsqlContext } from "../libsqlContext.js";
import { queryRow } from "../libsqlRows.js";
import type { RowWithLatestEvent } from "../rowWithLatestEvent.js";
import { rowsWithLatestEventIn, withLatestEvent } from "../rowWithLatestEvent.js";

/** The running row the token holds with its latest event, or undefined when the lease was lost (recovered, re-claimed, finished). */
export async function selectLeasedRow(ctx: LibsqlContext, lease: LeaseRef): Promise<RowWithLatestEvent | undefined> {
  const result = await ctx.client.execute(
    withLatestEvent("SELECT * FROM operations WHERE operation_id = ? AND phase = 'running' AND lease_token = ?", "", lease.operationId, lease.token),
  );
  return rowsWithLatestEventIn(result)[0];
}

async function checkLeaseAt(ctx: LibsqlContext, lease: LeaseRef, now: number): Promise<LeaseCheck> {
  const row = await queryRow<{ lease_expires_ms: number | null; cancel_requested_ms: number | null }>(
    ctx.client,
    "SELECT lease_expires_ms, cancel_requested_ms FROM operations WHERE operation_id = ? AND phase = 'running' AND lease_token = ?",
    lease.operationId,
    lease.token,
  );
  return leaseCheckOf(row, now);
}

/**
 * Extends the lease the token holds while it has not expired: one fenced UPDATE. A heartbeat is not
 * a state change: no event, same revision.
 */
export async function renewLease(ctx: LibsqlContext, lease: LeaseRef, leaseMs: number): Promise<LeaseCheck> {
  const now = ctx.clock();
  const row = await queryRow<{ cancel_requested_ms: number | null }>(
    ctx.client,
    `UPDATE operations SET lease_expires_ms = ?, updated_ms = ?
     WHERE operation_id = ? AND phase = 'running' AND lease_token = ? AND lease_expires_ms > ?
     RETURNING cancel_requested_ms`,
    now + leaseMs,
    now,
    lease.operationId,
    lease.token,
    now,
  );
  // Refused: say whether the token lost the row or its lease ran out (judged at the same instant).
  return row === undefined ? checkLeaseAt(ctx, lease, now) : { held: true, cancelRequested: row.cancel_requested_ms !== null };
}

/** Reads whether the token still holds an unexpired lease and whether a cancel is pending; writes nothing. */
export function checkLease(ctx: LibsqlContext, lease: LeaseRef): Promise<LeaseCheck> {
  return checkLeaseAt(ctx, lease, ctx.clock());
}
