import { crossBoundary } from "../../../core/operationTransitions.js";
import { leaseExpired } from "../../rows/leaseCheckOf.js";
import { toOperation } from "../../rows/operationRows.js";
import type { BoundaryResult, LeaseRef } from "../../Store.js";
import { applyGuarded } from "../batchGuard.js";
import { journalIdOf } from "../journalIdOf.js";
import type { LibsqlContext } from "../libsqlContext.js";
import { isAuthentic } from "../operationAuthenticity.js";
import { optimisticWrite } from "../optimisticWrite.js";
import { transitionWrite } from "../transitionWrite.js";
import { selectLeasedRow } from "./leases.js";

/**
 * Marks the mutation boundary crossed, fenced by the lease token and refused once a cancel request
 * is recorded. The crossing is guarded on the row as read, so a cancel request (or anything else)
 * that commits in between refuses it, and the decision is made again on the row as it is then:
 * whichever commits first decides, and a cancel acknowledged as "cancel_requested" is never followed
 * by a dispatched write. A row that no longer matches its journal is refused like a lost lease, and a
 * lease that ran out on the store's clock is refused even before anyone recovered it.
 */
export function crossMutationBoundary(ctx: LibsqlContext, lease: LeaseRef): Promise<BoundaryResult> {
  return optimisticWrite(ctx, `crossing the mutation boundary of ${lease.operationId}`, async (): Promise<BoundaryResult> => {
    const journalId = await journalIdOf(ctx);
    const leased = await selectLeasedRow(ctx, lease);
    if (leased === undefined || !isAuthentic(ctx, journalId, leased)) return "lease_lost";
    const now = ctx.clock();
    if (leaseExpired(leased.row, now)) return "lease_expired";
    const transition = crossBoundary(toOperation(leased.row), now);
    if (transition === "cancel_requested") return "cancel_requested";
    if (transition !== null)
      await applyGuarded(ctx.client, `crossing the mutation boundary of ${lease.operationId}`, transitionWrite(ctx, journalId, leased.row, transition).write);
    return "crossed";
  });
}
