import type { OperationRecord } from "../../Store.js";
import { decideReopen } from "../../../core/decideReopen.js";
import { toOperation } from "../../rows/operationRows.js";
import { applyTransition } from "../applyTransition.js";
import { requireAuthentic } from "../authenticRow.js";
import type { PgTx } from "../pgContext.js";
import { selectOperationRow } from "./operationRowPg.js";

/**
 * Applies the reopen transition (blocked → queued) that src/core/decideReopen returns while the
 * locked row is still blocked at the revision the caller judged (a concurrent change wins), once the
 * row matches its journal. The transition raises the attempt limit and clears the receipt status,
 * which detaches the receipt event.
 */
export async function reopenOperation(
  tx: PgTx,
  operationId: string,
  expectedRevision: number,
  extraAttempts: number,
  reason: string,
): Promise<OperationRecord | undefined> {
  const row = await selectOperationRow(tx, operationId, true);
  const transition = decideReopen(row === undefined ? undefined : toOperation(row), expectedRevision, tx.now, extraAttempts, reason);
  if (row === undefined || transition === undefined) return undefined;
  await requireAuthentic(tx, row);
  return toOperation(await applyTransition(tx, row, transition));
}
