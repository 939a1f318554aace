import type { OperationListOrder } from "../../rows/listOrder.js";
import { operationOrderSql } from "../../rows/listOrder.js";
import type { JournalEventRow, OperationTombstone } from "../../../journal/journalTypes.js";
import type { OperationPhase, OperationRecord, OperationStateRow, OperationView } from "../../Store.js";
import type { EventRow, OperationRow, TombstoneRow } from "../../rows/operationRows.js";
import { chainHeadOf, toEvent, toOperation, toTombstone } from "../../rows/operationRows.js";
import { latestEventOf } from "../authenticRow.js";
import type { PgTx } from "../pgContext.js";
import { selectOperationRow } from "./operationRowPg.js";

/** The operation, its latest event and its receipt event, or its tombstone; run in one read transaction (Store.readOperation). */
export async function readOperation(tx: PgTx, operationId: string, onlySubmittedBy?: string): Promise<OperationView | undefined> {
  const row = await selectOperationRow(tx, operationId);
  if (onlySubmittedBy !== undefined && row?.submitted_by !== onlySubmittedBy) return undefined;
  if (row === undefined) {
    const tombstone = await selectTombstone(tx, operationId);
    return tombstone === undefined ? undefined : { kind: "compacted", tombstone };
  }
  const latest = await latestEventOf(tx, operationId);
  const receipt = row.receipt_seq === null ? undefined : await selectEvent(tx, row.receipt_seq);
  return { kind: "live", operation: toOperation(row), latestEvent: latest, receiptEvent: receipt };
}

export async function selectEvent(tx: PgTx, seq: number): Promise<JournalEventRow | undefined> {
  const row = await tx.one<EventRow>("SELECT * FROM journal_events WHERE seq = $1", [seq]);
  return row === undefined ? undefined : toEvent(row);
}

export async function selectTombstone(tx: PgTx, operationId: string): Promise<OperationTombstone | undefined> {
  const row = await tx.one<TombstoneRow>("SELECT * FROM operation_tombstones WHERE operation_id = $1", [operationId]);
  return row === undefined ? undefined : toTombstone(row);
}

/** Every stored event of one operation, oldest first. */
export async function readOperationEvents(tx: PgTx, operationId: string): Promise<JournalEventRow[]> {
  return (await tx.rows<EventRow>("SELECT * FROM journal_events WHERE operation_id = $1 ORDER BY seq", [operationId])).map(toEvent);
}

/** A page of live operations by id, each with its latest event. */
export async function readOperationStates(tx: PgTx, afterOperationId: string, limit: number): Promise<OperationStateRow[]> {
  const rows = await tx.rows<OperationRow>("SELECT * FROM operations WHERE operation_id > $1 ORDER BY operation_id LIMIT $2", [afterOperationId, limit]);
  const states: OperationStateRow[] = [];
  for (const row of rows) states.push({ operation: toOperation(row), latestEvent: await latestEventOf(tx, row.operation_id), chainHead: chainHeadOf(row) });
  return states;
}

/** Operations in `query.order` (by last change, newest first, unless a runner asks for claim order), of one phase and one submitter when given. */
export async function listOperations(
  tx: PgTx,
  query: { phase?: OperationPhase; submittedBy?: string; limit: number; order?: OperationListOrder },
): Promise<OperationRecord[]> {
  const rows = await tx.rows<OperationRow>(
    `SELECT * FROM operations WHERE ($1::text IS NULL OR phase = $1) AND ($2::text IS NULL OR submitted_by = $2)
     ORDER BY ${operationOrderSql(query.order)} LIMIT $3`,
    [query.phase ?? null, query.submittedBy ?? null, query.limit],
  );
  return rows.map(toOperation);
}

/** One operation with its stored task document. */
export async function readOperationTask(tx: PgTx, operationId: string): Promise<{ operation: OperationRecord; taskJson: string } | undefined> {
  const row = await selectOperationRow(tx, operationId);
  return row === undefined ? undefined : { operation: toOperation(row), taskJson: row.task_json };
}
