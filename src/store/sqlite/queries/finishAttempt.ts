import type { AttemptResolution, ClaimRequest, FinishResult, LeaseRef, OperationRecord } from "../../Store.js";
import { isAuthentic } from "../authenticRow.js";
import { toOperation } from "../../rows/operationRows.js";
import type { SqliteContext } from "../sqliteContext.js";
import { applyResolution } from "./applyResolution.js";
import { claimNext } from "./claimNext.js";
import { selectLeasedRow } from "./leaseSql.js";

/**
 * Ends the attempt the lease token holds with the resolution `resolve` gives for the row as it is
 * now (a runner that lost its lease changes nothing, and a row that no longer matches its journal is
 * refused and left alone), then, when asked, claims the next eligible operation in the same transaction.
 */
export function finishAttempt(
  ctx: SqliteContext,
  lease: LeaseRef,
  resolve: (operation: OperationRecord) => AttemptResolution,
  next?: ClaimRequest,
): FinishResult {
  const row = selectLeasedRow(ctx, lease);
  let applied: AttemptResolution | undefined;
  if (row !== undefined && isAuthentic(ctx, row)) {
    applied = resolve(toOperation(row));
    applyResolution(ctx, row, applied);
  }
  return { applied, next: next === undefined ? undefined : claimNext(ctx, next.runnerId, next.leaseMs, next.onlyOperationId) };
}
