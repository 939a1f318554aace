import type { BoundaryResult, LeaseRef } from "../../Store.js";
import { crossBoundary } from "../../../core/operationTransitions.js";
import { applyTransition } from "../applyTransition.js";
import { toOperation } from "../../rows/operationRows.js";
import { isAuthentic } from "../authenticRow.js";
import { leaseExpired } from "../../rows/leaseCheckOf.js";
import type { SqliteContext } from "../sqliteContext.js";
import { selectLeasedRow } from "./leaseSql.js";

/**
 * Marks the mutation boundary crossed, fenced by the lease token and refused once a cancel request
 * is recorded. The cancel and the crossing are serialized by the write lock: whichever commits first
 * decides, so a cancel acknowledged as "cancel_requested" can never be followed by a dispatched write.
 * A row that no longer matches its journal is refused like a lost lease, and a lease that ran out on
 * the store's clock is refused even before anyone recovered it: nothing may be dispatched.
 */
export function crossMutationBoundary(ctx: SqliteContext, lease: LeaseRef): BoundaryResult {
  const row = selectLeasedRow(ctx, lease);
  if (row === undefined || !isAuthentic(ctx, row)) return "lease_lost";
  const now = ctx.clock();
  if (leaseExpired(row, now)) return "lease_expired";
  const transition = crossBoundary(toOperation(row), now);
  if (transition === "cancel_requested") return "cancel_requested";
  if (transition !== null) applyTransition(ctx, row, transition);
  return "crossed";
}
