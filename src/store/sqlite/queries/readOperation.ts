import type { JournalEventRow, OperationTombstone } from "../../../journal/journalTypes.js";
import type { OperationView } from "../../Store.js";
import { selectOperationRow } from "../operationRowSql.js";
import type { EventRow, TombstoneRow } from "../../rows/operationRows.js";
import { toEvent, toOperation, toTombstone } from "../../rows/operationRows.js";
import type { SqliteContext } from "../sqliteContext.js";

/** The operation, its latest event and its receipt event, or its tombstone; run in one read transaction (Store.readOperation). */
export function readOperation(ctx: SqliteContext, operationId: string, onlySubmittedBy?: string): OperationView | undefined {
  const row = selectOperationRow(ctx, operationId);
  if (onlySubmittedBy !== undefined && row?.submitted_by !== onlySubmittedBy) return undefined;
  if (row === undefined) {
    const tombstone = selectTombstone(ctx, operationId);
    return tombstone === undefined ? undefined : { kind: "compacted", tombstone };
  }
  const latest = ctx.sql("SELECT * FROM journal_events WHERE operation_id = ? ORDER BY seq DESC LIMIT 1").get(operationId) as EventRow | undefined;
  const receipt = row.receipt_seq === null ? undefined : selectEvent(ctx, row.receipt_seq);
  return {
    kind: "live",
    operation: toOperation(row),
    latestEvent: latest === undefined ? undefined : toEvent(latest),
    receiptEvent: receipt,
  };
}

export function selectEvent(ctx: SqliteContext, seq: number): JournalEventRow | undefined {
  const row = ctx.sql("SELECT * FROM journal_events WHERE seq = ?").get(seq) as EventRow | undefined;
  return row === undefined ? undefined : toEvent(row);
}

export function selectTombstone(ctx: SqliteContext, operationId: string): OperationTombstone | undefined {
  const row = ctx.sql("SELECT * FROM operation_tombstones WHERE operation_id = ?").get(operationId) as TombstoneRow | undefined;
  return row === undefined ? undefined : toTombstone(row);
}
