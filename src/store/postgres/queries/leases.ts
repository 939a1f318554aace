import type { BoundaryResult, LeaseCheck, LeaseRef } from "../../Store.js";
import { crossBoundary } from "../../../core/operationTransitions.js";
import { toOperation } from "../../rows/operationRows.js";
import { applyTransition } from "../applyTransition.js";
import { isAuthentic } from "../authenticRow.js";
import type { PgTx } from "../pgContext.js";
import { leaseCheckOf, leaseExpired } from "../../rows/leaseCheckOf.js";
import { selectLeasedRow } from "./operationRowPg.js";

/**
 * Extends the lease the token holds, to now() + leaseMs on the database clock, while it has not
 * expired. A heartbeat is not a state change: no event, same revision.
 */
export async function renewLease(tx: PgTx, lease: LeaseRef, leaseMs: number): Promise<LeaseCheck> {
  const row = await tx.one<{ cancel_requested_ms: number | null }>(
    `UPDATE operations SET lease_expires_ms = $1, updated_ms = $2
     WHERE operation_id = $3 AND phase = 'running' AND lease_token = $4 AND lease_expires_ms > $2
     RETURNING cancel_requested_ms`,
    [tx.now + leaseMs, tx.now, lease.operationId, lease.token],
  );
  // Refused: say whether the token lost the row or its lease ran out (same transaction, same clock).
  return row === undefined ? checkLease(tx, lease) : { held: true, cancelRequested: row.cancel_requested_ms !== null };
}

/** Reads whether the token still holds an unexpired lease and whether a cancel is pending; writes nothing. */
export async function checkLease(tx: PgTx, lease: LeaseRef): Promise<LeaseCheck> {
  const row = await tx.one<{ cancel_requested_ms: number | null; lease_expires_ms: number | null }>(
    "SELECT cancel_requested_ms, lease_expires_ms FROM operations WHERE operation_id = $1 AND phase = 'running' AND lease_token = $2",
    [lease.operationId, lease.token],
  );
  return leaseCheckOf(row, tx.now);
}

/**
 * Marks the mutation boundary crossed, fenced by the lease token and refused once a cancel request
 * is recorded. The row lock serializes the cancel and the crossing: whichever commits first decides,
 * so a cancel acknowledged as "cancel_requested" can never be followed by a dispatched write. A row
 * that no longer matches its journal is refused like a lost lease, and a lease that ran out on the
 * database clock is refused even before anyone recovered it: nothing may be dispatched.
 */
export async function crossMutationBoundary(tx: PgTx, lease: LeaseRef): Promise<BoundaryResult> {
  const leased = await selectLeasedRow(tx, lease.operationId, lease.token);
  if (leased === undefined || !(await isAuthentic(tx, leased.row, leased))) return "lease_lost";
  const row = leased.row;
  if (leaseExpired(row, tx.now)) return "lease_expired";
  const transition = crossBoundary(toOperation(row), tx.now);
  if (transition === "cancel_requested") return "cancel_requested";
  if (transition !== null) await applyTransition(tx, row, transition);
  return "crossed";
}
