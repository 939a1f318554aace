import type { JournalEventRow, OperationTombstone } from "../../../journal/journalTypes.js";
import type { EventRow, TombstoneRow } from "../../rows/operationRows.js";
import { toEvent, toTombstone } from "../../rows/operationRows.js";
import type { PgTx } from "../pgContext.js";

/** A page of events in sequence order, after `afterSeq`. */
export async function readJournalEvents(tx: PgTx, afterSeq: number, limit: number): Promise<JournalEventRow[]> {
  return (await tx.rows<EventRow>("SELECT * FROM journal_events WHERE seq > $1 ORDER BY seq LIMIT $2", [afterSeq, limit])).map(toEvent);
}

/** A page of the journal's own chain (operation-less events) by place, after `afterChainSeq`. */
export async function readJournalChain(tx: PgTx, afterChainSeq: number, limit: number): Promise<JournalEventRow[]> {
  return (
    await tx.rows<EventRow>("SELECT * FROM journal_events WHERE operation_id IS NULL AND chain_seq > $1 ORDER BY chain_seq LIMIT $2", [afterChainSeq, limit])
  ).map(toEvent);
}

/** How many stored events belong to some operation. */
export async function countOperationEvents(tx: PgTx): Promise<number> {
  return (await tx.one<{ n: number }>("SELECT count(*) AS n FROM journal_events WHERE operation_id IS NOT NULL"))?.n ?? 0;
}

/** A page of tombstones in operation-id order, after `afterOperationId` ("" for the first page). */
export async function readTombstones(tx: PgTx, afterOperationId: string, limit: number): Promise<OperationTombstone[]> {
  return (
    await tx.rows<TombstoneRow>("SELECT * FROM operation_tombstones WHERE operation_id > $1 ORDER BY operation_id LIMIT $2", [afterOperationId, limit])
  ).map(toTombstone);
}
