import type { OperationPhase, OperationRecord } from "../../Store.js";
import type { OperationRow } from "../../rows/operationRows.js";
import { toOperation } from "../../rows/operationRows.js";
import type { SqliteContext } from "../sqliteContext.js";

/** Operations by last change, newest first (the owner console's lists). */
export function listOperations(ctx: SqliteContext, query: { phase?: OperationPhase; limit: number }): OperationRecord[] {
  const rows = (
    query.phase === undefined
      ? ctx.sql("SELECT * FROM operations ORDER BY updated_ms DESC, operation_id LIMIT ?").all(query.limit)
      : ctx.sql("SELECT * FROM operations WHERE phase = ? ORDER BY updated_ms DESC, operation_id LIMIT ?").all(query.phase, query.limit)
  ) as OperationRow[];
  return rows.map(toOperation);
}

/** One operation with its stored task document. */
export function readOperationTask(ctx: SqliteContext, operationId: string): { operation: OperationRecord; taskJson: string } | undefined {
  const row = ctx.sql("SELECT * FROM operations WHERE operation_id = ?").get(operationId) as OperationRow | undefined;
  return row === undefined ? undefined : { operation: toOperation(row), taskJson: row.task_json };
}
