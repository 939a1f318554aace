import type { AttemptResolution } from "../../Store.js";
import { resolve } from "../../../core/operationTransitions.js";
import { applyTransition } from "../applyTransition.js";
import type { OperationRow } from "../../rows/operationRows.js";
import { toOperation } from "../../rows/operationRows.js";
import type { SqliteContext } from "../sqliteContext.js";

/**
 * Ends the current attempt of a running row as `resolution` says (operationTransitions.resolve):
 * finished with its receipt, or back in the queue after a delay; the event says how the attempt
 * ended, which is where the attempt history is read from. Called inside the write transaction that
 * checked the fence and authenticated the row.
 */
export function applyResolution(ctx: SqliteContext, row: OperationRow, resolution: AttemptResolution): OperationRow {
  return applyTransition(ctx, row, resolve(toOperation(row), ctx.clock(), resolution));
}
