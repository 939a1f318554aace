import type { LeaseCheck, LeaseRef } from "../../Store.js";
import type { OperationRow } from "../../rows/operationRows.js";
import type { SqliteContext } from "../sqliteContext.js";

/** The running row the token holds, or undefined when the lease was lost (recovered, re-claimed, finished). */
export function selectLeasedRow(ctx: SqliteContext, lease: LeaseRef): OperationRow | undefined {
  return ctx.sql("SELECT * FROM operations WHERE operation_id = ? AND phase = 'running' AND lease_token = ?").get(lease.operationId, lease.token) as
    | OperationRow
    | undefined;
}

/** Extends the lease the token holds. A heartbeat is not a state change: no event, same revision. */
export function renewLease(ctx: SqliteContext, lease: LeaseRef, leaseMs: number): LeaseCheck {
  const now = ctx.clock();
  const row = ctx
    .sql(
      `UPDATE operations SET lease_expires_ms = ?, updated_ms = ?
       WHERE operation_id = ? AND phase = 'running' AND lease_token = ?
       RETURNING cancel_requested_ms`,
    )
    .get(now + leaseMs, now, lease.operationId, lease.token) as { cancel_requested_ms: number | null } | undefined;
  return row === undefined ? { held: false, cancelRequested: false } : { held: true, cancelRequested: row.cancel_requested_ms !== null };
}

/** Reads whether the token still holds the lease and whether a cancel is pending; writes nothing. */
export function checkLease(ctx: SqliteContext, lease: LeaseRef): LeaseCheck {
  const row = selectLeasedRow(ctx, lease);
  return row === undefined ? { held: false, cancelRequested: false } : { held: true, cancelRequested: row.cancel_requested_ms !== null };
}
