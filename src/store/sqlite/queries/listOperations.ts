import type { OperationListOrder } from "../../rows/listOrder.js";
import { operationOrderSql } from "../../rows/listOrder.js";
import type { OperationPhase, OperationRecord } from "../../Store.js";
import type { OperationRow } from "../../rows/operationRows.js";
import { toOperation } from "../../rows/operationRows.js";
import type { SqliteContext } from "../sqliteContext.js";

/** Operations in `query.order` (by last change, newest first, unless a runner asks for claim order), of one phase and one submitter when given (lists). */
export function listOperations(
  ctx: SqliteContext,
  query: { phase?: OperationPhase; submittedBy?: string; limit: number; order?: OperationListOrder },
): OperationRecord[] {
  const rows = ctx
    .sql(
      `SELECT * FROM operations WHERE (@phase IS NULL OR phase = @phase) AND (@submittedBy IS NULL OR submitted_by = @submittedBy)
       ORDER BY ${operationOrderSql(query.order)} LIMIT @limit`,
    )
    .all({ phase: query.phase ?? null, submittedBy: query.submittedBy ?? null, limit: query.limit }) as OperationRow[];
  return rows.map(toOperation);
}

/** One operation with its stored task document. */
export function readOperationTask(ctx: SqliteContext, operationId: string): { operation: OperationRecord; taskJson: string } | undefined {
  const row = ctx.sql("SELECT * FROM operations WHERE operation_id = ?").get(operationId) as OperationRow | undefined;
  return row === undefined ? undefined : { operation: toOperation(row), taskJson: row.task_json };
}
