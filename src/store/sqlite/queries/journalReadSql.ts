import type { JournalEventRow, OperationTombstone } from "../../../journal/journalTypes.js";
import type { EventRow, TombstoneRow } from "../../rows/operationRows.js";
import { toEvent, toTombstone } from "../../rows/operationRows.js";
import type { SqliteContext } from "../sqliteContext.js";

/** A page of events in sequence order, after `afterSeq`. */
export function readJournalEvents(ctx: SqliteContext, afterSeq: number, limit: number): JournalEventRow[] {
  return (ctx.sql("SELECT * FROM journal_events WHERE seq > ? ORDER BY seq LIMIT ?").all(afterSeq, limit) as EventRow[]).map(toEvent);
}

/** A page of the journal's own chain (operation-less events) by place, after `afterChainSeq`. */
export function readJournalChain(ctx: SqliteContext, afterChainSeq: number, limit: number): JournalEventRow[] {
  return (
    ctx.sql("SELECT * FROM journal_events WHERE operation_id IS NULL AND chain_seq > ? ORDER BY chain_seq LIMIT ?").all(afterChainSeq, limit) as EventRow[]
  ).map(toEvent);
}

/** How many stored events belong to some operation. */
export function countOperationEvents(ctx: SqliteContext): number {
  return (ctx.sql("SELECT count(*) AS n FROM journal_events WHERE operation_id IS NOT NULL").get() as { n: number }).n;
}

/** A page of tombstones in operation-id order, after `afterOperationId` ("" for the first page). */
export function readTombstones(ctx: SqliteContext, afterOperationId: string, limit: number): OperationTombstone[] {
  return (
    ctx.sql("SELECT * FROM operation_tombstones WHERE operation_id > ? ORDER BY operation_id LIMIT ?").all(afterOperationId, limit) as TombstoneRow[]
  ).map(toTombstone);
}
