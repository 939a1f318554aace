import type { OperationRecord } from "../../Store.js";
import { reopen } from "../../../core/operationTransitions.js";
import { toOperation } from "../../rows/operationRows.js";
import { applyTransition } from "../applyTransition.js";
import { requireAuthentic } from "../authenticRow.js";
import type { PgTx } from "../pgContext.js";
import { selectOperationRow } from "./operationRowPg.js";

/**
 * Applies the reopen transition (blocked → queued) only while the locked row is still blocked at
 * the revision the caller judged (a concurrent change wins) and matches its journal. The transition
 * raises the attempt limit and clears the receipt status, which detaches the receipt event.
 */
export async function reopenOperation(tx: PgTx, operationId: string, expectedRevision: number, extraAttempts: number, reason: string): Promise<OperationRecord | undefined> {
  const row = await selectOperationRow(tx, operationId, true);
  if (row === undefined || row.phase !== "blocked" || row.revision !== expectedRevision) return undefined;
  await requireAuthentic(tx, row);
  return toOperation(await applyTransition(tx, row, reopen(toOperation(row), tx.now, extraAttempts, reason)));
}
