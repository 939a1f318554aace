import { eventStoredBytes, resealHead, TOMBSTONE_BYTES } from "../../../journal/sealEvent.js";
import type { TombstoneFields } from "../../../journal/journalTypes.js";
import { appendJournalEvent } from "../appendJournalEvent.js";
import { requireHead, writeHead } from "../journalHeadSql.js";
import type { SqliteContext } from "../sqliteContext.js";

/** Terminal phases that may be compacted. Uncertain operations keep their evidence until someone reconciles them. */
const COMPACTABLE = "('completed', 'blocked', 'cancelled')";

interface CompactBatchResult {
  operations: number;
  eventBodies: number;
  bytesFreed: number;
}

/**
 * Compacts up to `limit` terminal operations that finished before `cutoffMs`: each gets an
 * authenticated tombstone (id, digest, final phase and status, attempts, last event), its events
 * lose their bodies (the chain keeps their hashes and MACs, so it still verifies), and its row,
 * task document, attempts and control actions are deleted. One short transaction per batch.
 */
export function compactBatch(ctx: SqliteContext, cutoffMs: number, limit: number): CompactBatchResult {
  const rows = ctx
    .sql(`SELECT operation_id, request_digest, phase, receipt_status, attempts, revision, mutation_boundary, created_ms, finished_ms, length(CAST(task_json AS BLOB)) AS task_bytes
          FROM operations WHERE finished_ms < ? AND phase IN ${COMPACTABLE} ORDER BY finished_ms, operation_id LIMIT ?`)
    .all(cutoffMs, limit) as {
    operation_id: string;
    request_digest: string;
    phase: string;
    receipt_status: string | null;
    attempts: number;
    revision: number;
    mutation_boundary: string;
    created_ms: number;
    finished_ms: number;
    task_bytes: number;
  }[];
  if (rows.length === 0) return { operations: 0, eventBodies: 0, bytesFreed: 0 };

  const now = ctx.clock();
  let head = requireHead(ctx);
  let bytesFreed = 0;
  let eventBodies = 0;
  for (const row of rows) {
    const events = ctx
      .sql("SELECT max(seq) AS last_seq, count(body) AS bodies, coalesce(sum(length(CAST(body AS BLOB))), 0) AS body_bytes FROM journal_events WHERE operation_id = ?")
      .get(row.operation_id) as { last_seq: number | null; bodies: number; body_bytes: number };
    const fields: TombstoneFields = {
      operationId: row.operation_id,
      requestDigest: row.request_digest,
      phase: row.phase,
      receiptStatus: row.receipt_status,
      attempts: row.attempts,
      revision: row.revision,
      mutationBoundary: row.mutation_boundary,
      lastSeq: events.last_seq ?? 0,
      createdMs: row.created_ms,
      finishedMs: row.finished_ms,
      compactedMs: now,
    };
    const tombstone = { ...fields, mac: ctx.sealer.tombstoneMac(head.journalId, fields) };
    ctx
      .sql(
        `INSERT INTO operation_tombstones (operation_id, request_digest, phase, receipt_status, attempts, revision, mutation_boundary, last_seq, created_ms, finished_ms, compacted_ms, mac)
         VALUES (@operationId, @requestDigest, @phase, @receiptStatus, @attempts, @revision, @mutationBoundary, @lastSeq, @createdMs, @finishedMs, @compactedMs, @mac)`,
      )
      .run(tombstone);
    ctx.sql("UPDATE journal_events SET body = NULL WHERE operation_id = ? AND body IS NOT NULL").run(row.operation_id);
    ctx.sql("DELETE FROM attempts WHERE operation_id = ?").run(row.operation_id);
    ctx.sql("DELETE FROM control_actions WHERE operation_id = ?").run(row.operation_id);
    ctx.sql("DELETE FROM operations WHERE operation_id = ?").run(row.operation_id);
    eventBodies += events.bodies;
    bytesFreed += events.body_bytes + row.task_bytes - TOMBSTONE_BYTES;
  }
  head = resealHead(ctx.sealer, head, { storedBytes: Math.max(0, head.storedBytes - bytesFreed), tombstones: head.tombstones + rows.length });
  writeHead(ctx, head);
  return { operations: rows.length, eventBodies, bytesFreed };
}

/**
 * Folds the longest prefix of the chain that holds nothing worth keeping into the head: events of
 * compacted operations (bodies already gone) and operation-less events older than the cutoff. The
 * head then records the last folded event's MAC as its base, and verification starts from there.
 * Returns how many events were removed and the bytes they counted.
 */
export function collapsePrefix(ctx: SqliteContext, cutoffMs: number): { eventsRemoved: number; bytesFreed: number } {
  const head = requireHead(ctx);
  const blocking = ctx
    .sql("SELECT min(seq) AS seq FROM journal_events WHERE body IS NOT NULL AND (operation_id IS NOT NULL OR at_ms >= ?)")
    .get(cutoffMs) as { seq: number | null };
  const through = blocking.seq === null ? head.seq : blocking.seq - 1;
  if (through <= head.baseSeq) return { eventsRemoved: 0, bytesFreed: 0 };
  const last = ctx.sql("SELECT mac FROM journal_events WHERE seq = ?").get(through) as { mac: string } | undefined;
  if (last === undefined) throw new Error(`journal event ${through} is missing; run "errand journal verify"`);
  const removed = ctx.sql("SELECT body FROM journal_events WHERE seq <= ?").all(through) as { body: string | null }[];
  const bytesFreed = removed.reduce((sum, event) => sum + eventStoredBytes(event.body), 0);
  ctx.sql("DELETE FROM journal_events WHERE seq <= ?").run(through);
  writeHead(ctx, resealHead(ctx.sealer, head, { baseSeq: through, baseMac: last.mac, storedBytes: Math.max(0, head.storedBytes - bytesFreed) }));
  return { eventsRemoved: removed.length, bytesFreed };
}

/** Journals the compaction itself (an operation-less event, folded away by a later compaction). */
export function recordCompaction(ctx: SqliteContext, body: Record<string, unknown>): void {
  appendJournalEvent(ctx, { type: "journal_compacted", operationId: null, body }, ctx.clock());
}
