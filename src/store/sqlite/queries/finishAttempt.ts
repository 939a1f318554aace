import type { AttemptResolution, LeaseRef, OperationRecord } from "../../Store.js";
import { toOperation } from "../rows.js";
import type { SqliteContext } from "../sqliteContext.js";
import { applyResolution } from "./applyResolution.js";
import { selectLeasedRow } from "./leaseSql.js";

/**
 * Ends the attempt the lease token holds with the resolution `resolve` gives for the row as it is
 * now; a runner that lost its lease changes nothing and gets undefined.
 */
export function finishAttempt(ctx: SqliteContext, lease: LeaseRef, resolve: (operation: OperationRecord) => AttemptResolution): AttemptResolution | undefined {
  const row = selectLeasedRow(ctx, lease);
  if (row === undefined) return undefined;
  const resolution = resolve(toOperation(row));
  const outcome =
    resolution.kind === "finish"
      ? { outcome: resolution.receipt.status, errorCode: resolution.receipt.error?.code ?? null, provider: resolution.receipt.provider || null }
      : { outcome: resolution.attemptOutcome, errorCode: resolution.errorCode, provider: resolution.provider };
  applyResolution(ctx, row, resolution, outcome);
  return resolution;
}
