import type { LeaseCheck } from "../Store.js";

/**
 * What a lease check reports for the running row a token holds (undefined: the token holds none),
 * judged at `now` on the store's clock. A lease with no expiry on a running row counts as expired:
 * nothing may be done under a lease whose end is unknown.
 */
export function leaseCheckOf(row: { lease_expires_ms: number | null; cancel_requested_ms: number | null } | undefined, now: number): LeaseCheck {
  if (row === undefined) return { held: false, cancelRequested: false };
  const cancelRequested = row.cancel_requested_ms !== null;
  if (leaseExpired(row, now)) return { held: false, cancelRequested, expired: true };
  return { held: true, cancelRequested };
}

/** Whether a running row's lease has run out at `now` (the store's clock). */
export function leaseExpired(row: { lease_expires_ms: number | null }, now: number): boolean {
  return row.lease_expires_ms === null || row.lease_expires_ms <= now;
}
