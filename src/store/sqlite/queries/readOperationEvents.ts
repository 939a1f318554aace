import type { JournalEventRow } from "../../../journal/journalTypes.js";
import type { OperationStateRow } from "../../Store.js";
import { latestEventOf } from "../authenticRow.js";
import type { EventRow, OperationRow } from "../../rows/operationRows.js";
import { chainHeadOf, toEvent, toOperation } from "../../rows/operationRows.js";
import type { SqliteContext } from "../sqliteContext.js";

/** Every stored event of one operation, oldest first. */
export function readOperationEvents(ctx: SqliteContext, operationId: string): JournalEventRow[] {
  const rows = ctx.sql("SELECT * FROM journal_events WHERE operation_id = ? ORDER BY seq").all(operationId) as EventRow[];
  return rows.map(toEvent);
}

/** A page of live operations by id, each with its latest event. */
export function readOperationStates(ctx: SqliteContext, afterOperationId: string, limit: number): OperationStateRow[] {
  const rows = ctx.sql("SELECT * FROM operations WHERE operation_id > ? ORDER BY operation_id LIMIT ?").all(afterOperationId, limit) as OperationRow[];
  return rows.map((row) => ({ operation: toOperation(row), latestEvent: latestEventOf(ctx, row.operation_id), chainHead: chainHeadOf(row) }));
}
