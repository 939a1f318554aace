import { eventStoredBytes, resealHead, TOMBSTONE_BYTES } from "../../../journal/sealEvent.js";
import { appendJournalEvent } from "../appendJournalEvent.js";
import { lockHead, writeHead } from "../journalHeadPg.js";
import type { PgTx } from "../pgContext.js";
import { tombstoneFieldsOf } from "../../rows/operationRows.js";
import type { CompactedOperationRow } from "../../rows/operationRows.js";

interface CompactBatchResult {
  operations: number;
  eventBodies: number;
  eventsRemoved: number;
  bytesFreed: number;
}

/** A finished operation as compaction reads it: what its tombstone covers, and what it frees. */
interface CompactableRow extends CompactedOperationRow {
  stored_bytes: number;
}

/**
 * Compacts up to `limit` terminal operations (uncertain ones keep their evidence) that finished
 * before `cutoffMs`: each gets an authenticated tombstone, and its row, its chain of events and its
 * control actions are deleted. The head counts the tombstones and their bytes. The rows are locked
 * first, the head last, as every writer does.
 */
export async function compactBatch(tx: PgTx, cutoffMs: number, limit: number): Promise<CompactBatchResult> {
  const rows = await tx.rows<CompactableRow>(
    `SELECT operation_id, request_digest, phase, receipt_status, attempts, revision, mutation_boundary, created_ms, finished_ms, stored_bytes
     FROM operations WHERE finished_ms < $1 AND phase IN ('completed', 'blocked', 'cancelled') ORDER BY finished_ms, operation_id LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [cutoffMs, limit],
  );
  if (rows.length === 0) return { operations: 0, eventBodies: 0, eventsRemoved: 0, bytesFreed: 0 };
  const head = await lockHead(tx);
  let bytesFreed = 0;
  let eventBodies = 0;
  let eventsRemoved = 0;
  for (const row of rows) {
    const events = await tx.one<{ last_seq: number | null; bodies: number; n: number }>(
      "SELECT max(seq) AS last_seq, count(body) AS bodies, count(*) AS n FROM journal_events WHERE operation_id = $1",
      [row.operation_id],
    );
    const fields = tombstoneFieldsOf(row, events?.last_seq, tx.now);
    const mac = tx.ctx.sealer.tombstoneMac(head.journalId, fields);
    await tx.run(
      `INSERT INTO operation_tombstones (operation_id, request_digest, phase, receipt_status, attempts, revision, mutation_boundary, last_seq, created_ms, finished_ms, compacted_ms, mac)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [
        fields.operationId,
        fields.requestDigest,
        fields.phase,
        fields.receiptStatus,
        fields.attempts,
        fields.revision,
        fields.mutationBoundary,
        fields.lastSeq,
        fields.createdMs,
        fields.finishedMs,
        fields.compactedMs,
        mac,
      ],
    );
    await tx.run("DELETE FROM journal_events WHERE operation_id = $1", [row.operation_id]);
    await tx.run("DELETE FROM control_actions WHERE operation_id = $1", [row.operation_id]);
    await tx.run("DELETE FROM operations WHERE operation_id = $1", [row.operation_id]);
    eventBodies += events?.bodies ?? 0;
    eventsRemoved += events?.n ?? 0;
    bytesFreed += row.stored_bytes - TOMBSTONE_BYTES;
  }
  await writeHead(
    tx,
    resealHead(tx.ctx.sealer, head, { storedBytes: head.storedBytes + TOMBSTONE_BYTES * rows.length, tombstones: head.tombstones + rows.length }),
  );
  return { operations: rows.length, eventBodies, eventsRemoved, bytesFreed };
}

/**
 * Folds the oldest events of the journal's own chain (operation-less) older than the cutoff into the
 * head: the head records the last folded event's place and MAC as its base, and verification starts
 * from there.
 */
export async function collapsePrefix(tx: PgTx, cutoffMs: number): Promise<{ eventsRemoved: number; bytesFreed: number }> {
  const head = await lockHead(tx);
  const blocking = await tx.one<{ place: number | null }>("SELECT min(chain_seq) AS place FROM journal_events WHERE operation_id IS NULL AND at_ms >= $1", [
    cutoffMs,
  ]);
  const through = blocking?.place === null || blocking === undefined ? head.seq : blocking.place - 1;
  if (through <= head.baseSeq) return { eventsRemoved: 0, bytesFreed: 0 };
  const last = await tx.one<{ mac: string }>("SELECT mac FROM journal_events WHERE operation_id IS NULL AND chain_seq = $1", [through]);
  if (last === undefined) throw new Error(`place ${through} of the journal's own chain is missing; run "errand journal verify"`);
  const removed = await tx.rows<{ body: string | null }>("SELECT body FROM journal_events WHERE operation_id IS NULL AND chain_seq <= $1", [through]);
  const bytesFreed = removed.reduce((sum, event) => sum + eventStoredBytes(event.body), 0);
  await tx.run("DELETE FROM journal_events WHERE operation_id IS NULL AND chain_seq <= $1", [through]);
  await writeHead(tx, resealHead(tx.ctx.sealer, head, { baseSeq: through, baseMac: last.mac, storedBytes: Math.max(0, head.storedBytes - bytesFreed) }));
  return { eventsRemoved: removed.length, bytesFreed };
}

/** Journals the compaction itself (an operation-less event, folded away by a later compaction). */
export async function recordCompaction(tx: PgTx, body: Record<string, unknown>): Promise<void> {
  await appendJournalEvent(tx, { type: "journal_compacted", operationId: null, body }, tx.now);
}
