import { eventStoredBytes, resealHead, TOMBSTONE_BYTES } from "../../../journal/sealEvent.js";
import { appendJournalEvent } from "../appendJournalEvent.js";
import { requireHead, writeHead } from "../journalHeadSql.js";
import type { SqliteContext } from "../sqliteContext.js";
import { tombstoneFieldsOf } from "../../rows/operationRows.js";
import type { CompactedOperationRow } from "../../rows/operationRows.js";

/** Terminal phases that may be compacted. Uncertain operations keep their evidence until someone reconciles them. */
const COMPACTABLE = "('completed', 'blocked', 'cancelled')";

interface CompactBatchResult {
  operations: number;
  eventBodies: number;
  eventsRemoved: number;
  bytesFreed: number;
}

/**
 * Compacts up to `limit` terminal operations that finished before `cutoffMs`: each gets an
 * authenticated tombstone (id, digest, final phase and status, attempts, last event), and its row,
 * its chain of events, task document, attempts and control actions are deleted. The head counts the
 * tombstones (so deleting one is noticed) and their bytes. One short transaction per batch.
 */
export function compactBatch(ctx: SqliteContext, cutoffMs: number, limit: number): CompactBatchResult {
  const rows = ctx
    .sql(
      `SELECT operation_id, request_digest, phase, receipt_status, attempts, revision, mutation_boundary, created_ms, finished_ms, stored_bytes
          FROM operations WHERE finished_ms < ? AND phase IN ${COMPACTABLE} ORDER BY finished_ms, operation_id LIMIT ?`,
    )
    .all(cutoffMs, limit) as (CompactedOperationRow & { stored_bytes: number })[];
  if (rows.length === 0) return { operations: 0, eventBodies: 0, eventsRemoved: 0, bytesFreed: 0 };

  const now = ctx.clock();
  const head = requireHead(ctx);
  let bytesFreed = 0;
  let eventBodies = 0;
  let eventsRemoved = 0;
  for (const row of rows) {
    const events = ctx
      .sql("SELECT max(seq) AS last_seq, count(body) AS bodies, count(*) AS n FROM journal_events WHERE operation_id = ?")
      .get(row.operation_id) as {
      last_seq: number | null;
      bodies: number;
      n: number;
    };
    const fields = tombstoneFieldsOf(row, events.last_seq, now);
    const tombstone = { ...fields, mac: ctx.sealer.tombstoneMac(head.journalId, fields) };
    ctx
      .sql(
        `INSERT INTO operation_tombstones (operation_id, request_digest, phase, receipt_status, attempts, revision, mutation_boundary, last_seq, created_ms, finished_ms, compacted_ms, mac)
         VALUES (@operationId, @requestDigest, @phase, @receiptStatus, @attempts, @revision, @mutationBoundary, @lastSeq, @createdMs, @finishedMs, @compactedMs, @mac)`,
      )
      .run(tombstone);
    ctx.sql("DELETE FROM journal_events WHERE operation_id = ?").run(row.operation_id);
    ctx.sql("DELETE FROM attempts WHERE operation_id = ?").run(row.operation_id);
    ctx.sql("DELETE FROM control_actions WHERE operation_id = ?").run(row.operation_id);
    ctx.sql("DELETE FROM operations WHERE operation_id = ?").run(row.operation_id);
    eventBodies += events.bodies;
    eventsRemoved += events.n;
    bytesFreed += row.stored_bytes - TOMBSTONE_BYTES;
  }
  writeHead(ctx, resealHead(ctx.sealer, head, { storedBytes: head.storedBytes + TOMBSTONE_BYTES * rows.length, tombstones: head.tombstones + rows.length }));
  return { operations: rows.length, eventBodies, eventsRemoved, bytesFreed };
}

/**
 * Folds the oldest events of the journal's own chain (operation-less: access, providers, secrets,
 * breakers, compactions) that are older than the cutoff into the head: the head records the last
 * folded event's place and MAC as its base, and verification starts from there. Returns how many
 * events were removed and the bytes they counted.
 */
export function collapsePrefix(ctx: SqliteContext, cutoffMs: number): { eventsRemoved: number; bytesFreed: number } {
  const head = requireHead(ctx);
  const blocking = ctx.sql("SELECT min(chain_seq) AS place FROM journal_events WHERE operation_id IS NULL AND at_ms >= ?").get(cutoffMs) as {
    place: number | null;
  };
  const through = blocking.place === null ? head.seq : blocking.place - 1;
  if (through <= head.baseSeq) return { eventsRemoved: 0, bytesFreed: 0 };
  const last = ctx.sql("SELECT mac FROM journal_events WHERE operation_id IS NULL AND chain_seq = ?").get(through) as { mac: string } | undefined;
  if (last === undefined) throw new Error(`place ${through} of the journal's own chain is missing; run "errand journal verify"`);
  const removed = ctx.sql("SELECT body FROM journal_events WHERE operation_id IS NULL AND chain_seq <= ?").all(through) as { body: string | null }[];
  const bytesFreed = removed.reduce((sum, event) => sum + eventStoredBytes(event.body), 0);
  ctx.sql("DELETE FROM journal_events WHERE operation_id IS NULL AND chain_seq <= ?").run(through);
  writeHead(ctx, resealHead(ctx.sealer, head, { baseSeq: through, baseMac: last.mac, storedBytes: Math.max(0, head.storedBytes - bytesFreed) }));
  return { eventsRemoved: removed.length, bytesFreed };
}

/** Journals the compaction itself (an operation-less event, folded away by a later compaction). */
export function recordCompaction(ctx: SqliteContext, body: Record<string, unknown>): void {
  appendJournalEvent(ctx, { type: "journal_compacted", operationId: null, body }, ctx.clock());
}
