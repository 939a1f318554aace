import type { OperationListOrder } from "../../rows/listOrder.js";
import { operationOrderSql } from "../../rows/listOrder.js";
import type { EventRow, OperationRow, TombstoneRow } from "../../rows/operationRows.js";
import { toEvent, toOperation, toTombstone } from "../../rows/operationRows.js";
import type { OperationPhase, OperationRecord, OperationView } from "../../Store.js";
import type { LibsqlContext } from "../libsqlContext.js";
import { statement } from "../LibsqlClientLike.js";
import { firstRowIn, queryRow, queryRows } from "../libsqlRows.js";

/**
 * The operation, its latest event and its receipt event, or its tombstone, in one read batch (one
 * snapshot). With `onlySubmittedBy`, undefined unless the live row names that submitter; the batch
 * is the same whoever asks, so another's operation costs what an unknown id costs.
 */
export async function readOperation(ctx: LibsqlContext, operationId: string, onlySubmittedBy?: string): Promise<OperationView | undefined> {
  const [rowResult, latestResult, receiptResult, tombstoneResult] = await ctx.client.batch(
    [
      statement("SELECT * FROM operations WHERE operation_id = ?", operationId),
      statement("SELECT * FROM journal_events WHERE operation_id = ? ORDER BY seq DESC LIMIT 1", operationId),
      statement("SELECT * FROM journal_events WHERE seq = (SELECT receipt_seq FROM operations WHERE operation_id = ?)", operationId),
      statement("SELECT * FROM operation_tombstones WHERE operation_id = ?", operationId),
    ],
    "read",
  );
  const row = firstRowIn<OperationRow>(rowResult);
  if (onlySubmittedBy !== undefined && row?.submitted_by !== onlySubmittedBy) return undefined;
  if (row === undefined) {
    const tombstone = firstRowIn<TombstoneRow>(tombstoneResult);
    return tombstone === undefined ? undefined : { kind: "compacted", tombstone: toTombstone(tombstone) };
  }
  const latest = firstRowIn<EventRow>(latestResult);
  const receipt = firstRowIn<EventRow>(receiptResult);
  return {
    kind: "live",
    operation: toOperation(row),
    latestEvent: latest === undefined ? undefined : toEvent(latest),
    receiptEvent: receipt === undefined ? undefined : toEvent(receipt),
  };
}

/** Operations in `query.order` (by last change, newest first, unless a runner asks for claim order), of one phase and one submitter when given. */
export async function listOperations(
  ctx: LibsqlContext,
  query: { phase?: OperationPhase; submittedBy?: string; limit: number; order?: OperationListOrder },
): Promise<OperationRecord[]> {
  const phase = query.phase ?? null;
  const submittedBy = query.submittedBy ?? null;
  const rows = await queryRows<OperationRow>(
    ctx.client,
    `SELECT * FROM operations WHERE (? IS NULL OR phase = ?) AND (? IS NULL OR submitted_by = ?) ORDER BY ${operationOrderSql(query.order)} LIMIT ?`,
    phase,
    phase,
    submittedBy,
    submittedBy,
    query.limit,
  );
  return rows.map(toOperation);
}

/** One operation with its stored task document. */
export async function readOperationTask(ctx: LibsqlContext, operationId: string): Promise<{ operation: OperationRecord; taskJson: string } | undefined> {
  const row = await queryRow<OperationRow>(ctx.client, "SELECT * FROM operations WHERE operation_id = ?", operationId);
  return row === undefined ? undefined : { operation: toOperation(row), taskJson: row.task_json };
}
