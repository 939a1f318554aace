import type { CheckpointEntry, JournalEventRow, OperationTombstone } from "../../../journal/journalTypes.js";
import type { CheckpointRow, EventRow, TombstoneRow } from "../../rows/operationRows.js";
import { chainHeadOf, toCheckpointEntry, toEvent, toOperation, toTombstone } from "../../rows/operationRows.js";
import type { OperationStateRow } from "../../Store.js";
import type { LibsqlStatement } from "../LibsqlClientLike.js";
import { statement } from "../LibsqlClientLike.js";
import type { LibsqlResult } from "../LibsqlClientLike.js";
import { rowsIn } from "../libsqlRows.js";
import { rowsWithLatestEventIn, withLatestEvent } from "../rowWithLatestEvent.js";

/**
 * The journal's reads, each one statement and its mapping, so they can be run alone (execute) or
 * several in one snapshot (a read batch: readJournalSnapshot).
 */
export interface JournalRead<T> {
  statement: LibsqlStatement;
  map(result: LibsqlResult | undefined): T;
}

/** A page of events in sequence order, after `afterSeq`. */
export function journalEventsRead(afterSeq: number, limit: number): JournalRead<JournalEventRow[]> {
  return {
    statement: statement("SELECT * FROM journal_events WHERE seq > ? ORDER BY seq LIMIT ?", afterSeq, limit),
    map: (r) => rowsIn<EventRow>(r).map(toEvent),
  };
}

/** A page of the journal's own chain (operation-less events) by place, after `afterChainSeq`. */
export function journalChainRead(afterChainSeq: number, limit: number): JournalRead<JournalEventRow[]> {
  return {
    statement: statement("SELECT * FROM journal_events WHERE operation_id IS NULL AND chain_seq > ? ORDER BY chain_seq LIMIT ?", afterChainSeq, limit),
    map: (r) => rowsIn<EventRow>(r).map(toEvent),
  };
}

/** How many stored events belong to some operation. */
export function operationEventCountRead(): JournalRead<number> {
  return { statement: statement("SELECT count(*) AS n FROM journal_events WHERE operation_id IS NOT NULL"), map: (r) => rowsIn<{ n: number }>(r)[0]?.n ?? 0 };
}

/** A page of tombstones in operation-id order, after `afterOperationId` ("" for the first page). */
export function tombstonesRead(afterOperationId: string, limit: number): JournalRead<OperationTombstone[]> {
  return {
    statement: statement("SELECT * FROM operation_tombstones WHERE operation_id > ? ORDER BY operation_id LIMIT ?", afterOperationId, limit),
    map: (r) => rowsIn<TombstoneRow>(r).map(toTombstone),
  };
}

/** A page of the checkpoint's list by operation id. */
export function checkpointRead(afterOperationId: string, limit: number): JournalRead<CheckpointEntry[]> {
  return {
    statement: statement("SELECT * FROM journal_checkpoint WHERE operation_id > ? ORDER BY operation_id LIMIT ?", afterOperationId, limit),
    map: (r) => rowsIn<CheckpointRow>(r).map(toCheckpointEntry),
  };
}

/** Every stored event of one operation, oldest first. */
export function operationEventsRead(operationId: string): JournalRead<JournalEventRow[]> {
  return {
    statement: statement("SELECT * FROM journal_events WHERE operation_id = ? ORDER BY seq", operationId),
    map: (r) => rowsIn<EventRow>(r).map(toEvent),
  };
}

/** A page of live operations by id, each with its latest event (read by the same statement). */
export function operationStatesRead(afterOperationId: string, limit: number): JournalRead<OperationStateRow[]> {
  return {
    statement: withLatestEvent("SELECT * FROM operations WHERE operation_id > ? ORDER BY operation_id LIMIT ?", "o.operation_id", afterOperationId, limit),
    map: (r) => rowsWithLatestEventIn(r).map(({ row, latest }) => ({ operation: toOperation(row), latestEvent: latest, chainHead: chainHeadOf(row) })),
  };
}
