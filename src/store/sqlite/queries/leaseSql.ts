import type { LeaseCheck, LeaseRef } from "../../Store.js";
import type { OperationRow } from "../../rows/operationRows.js";
import { leaseCheckOf } from "../../rows/leaseCheckOf.js";
import type { SqliteContext } from "../sqliteContext.js";

/** The running row the token holds, or undefined when the lease was lost (recovered, re-claimed, finished). */
export function selectLeasedRow(ctx: SqliteContext, lease: LeaseRef): OperationRow | undefined {
  return ctx.sql("SELECT * FROM operations WHERE operation_id = ? AND phase = 'running' AND lease_token = ?").get(lease.operationId, lease.token) as
    OperationRow | undefined;
}

/** Extends the lease the token holds while it has not expired. A heartbeat is not a state change: no event, same revision. */
export function renewLease(ctx: SqliteContext, lease: LeaseRef, leaseMs: number): LeaseCheck {
  const now = ctx.clock();
  const row = ctx
    .sql(
      `UPDATE operations SET lease_expires_ms = ?, updated_ms = ?
       WHERE operation_id = ? AND phase = 'running' AND lease_token = ? AND lease_expires_ms > ?
       RETURNING cancel_requested_ms`,
    )
    .get(now + leaseMs, now, lease.operationId, lease.token, now) as { cancel_requested_ms: number | null } | undefined;
  // Refused: say whether the token lost the row or its lease ran out (same transaction, same clock).
  return row === undefined ? checkLeaseAt(ctx, lease, now) : { held: true, cancelRequested: row.cancel_requested_ms !== null };
}

/** Reads whether the token still holds an unexpired lease and whether a cancel is pending; writes nothing. */
export function checkLease(ctx: SqliteContext, lease: LeaseRef): LeaseCheck {
  return checkLeaseAt(ctx, lease, ctx.clock());
}

function checkLeaseAt(ctx: SqliteContext, lease: LeaseRef, now: number): LeaseCheck {
  return leaseCheckOf(selectLeasedRow(ctx, lease), now);
}
