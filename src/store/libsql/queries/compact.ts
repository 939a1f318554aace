import { eventStoredBytes, resealHead, TOMBSTONE_BYTES } from "../../../journal/sealEvent.js";
import { appendJournalEvent } from "../appendJournalEvent.js";
import type { LibsqlStatement } from "../LibsqlClientLike.js";
import { statement } from "../LibsqlClientLike.js";
import { applyGuarded, guard } from "../batchGuard.js";
import { headIn, headUnchanged, requireHead, SELECT_HEAD, selectHead, writeHead } from "../journalHead.js";
import type { LibsqlContext } from "../libsqlContext.js";
import { firstRowIn, rowsIn } from "../libsqlRows.js";
import { optimisticWrite } from "../optimisticWrite.js";
import { tombstoneFieldsOf } from "../../rows/operationRows.js";
import type { CompactedOperationRow } from "../../rows/operationRows.js";

export interface CompactBatchResult {
  operations: number;
  eventBodies: number;
  eventsRemoved: number;
  bytesFreed: number;
}

/** A finished operation as compaction reads it: what its tombstone covers, and what it frees. */
interface CompactableRow extends CompactedOperationRow {
  stored_bytes: number;
  chain_seq: number;
  last_seq: number | null;
  bodies: number;
  events: number;
}

/**
 * Compacts up to `limit` terminal operations that finished before `cutoffMs` (uncertain ones keep
 * their evidence until someone reconciles them): each gets an authenticated tombstone (id, digest,
 * final phase and status, attempts, last event), and its row, its chain of events and its control
 * actions are deleted. The head counts the tombstones (so
 * deleting one is noticed) and their bytes. One batch, guarded on the head and on every row as read
 * (a blocked operation may be reopened meanwhile).
 */
export function compactBatch(ctx: LibsqlContext, cutoffMs: number, limit: number): Promise<CompactBatchResult> {
  return optimisticWrite(ctx, "compacting finished operations", async (): Promise<CompactBatchResult> => {
    const [rowsResult, headResult] = await ctx.client.batch(
      [
        statement(
          `SELECT o.operation_id, o.request_digest, o.phase, o.receipt_status, o.attempts, o.revision, o.mutation_boundary, o.created_ms, o.finished_ms, o.stored_bytes, o.chain_seq,
             (SELECT max(seq) FROM journal_events e WHERE e.operation_id = o.operation_id) AS last_seq,
             (SELECT count(body) FROM journal_events e WHERE e.operation_id = o.operation_id) AS bodies,
             (SELECT count(*) FROM journal_events e WHERE e.operation_id = o.operation_id) AS events
           FROM operations o WHERE o.finished_ms < ? AND o.phase IN ('completed', 'blocked', 'cancelled') ORDER BY o.finished_ms, o.operation_id LIMIT ?`,
          cutoffMs,
          limit,
        ),
        SELECT_HEAD,
      ],
      "read",
    );
    const rows = rowsIn<CompactableRow>(rowsResult);
    if (rows.length === 0) return { operations: 0, eventBodies: 0, eventsRemoved: 0, bytesFreed: 0 };
    const head = requireHead(ctx, headIn(headResult));
    const now = ctx.clock();
    const guards: LibsqlStatement[] = [headUnchanged(head)];
    const writes: LibsqlStatement[] = [];
    const result: CompactBatchResult = { operations: rows.length, eventBodies: 0, eventsRemoved: 0, bytesFreed: 0 };
    for (const row of rows) {
      const fields = tombstoneFieldsOf(row, row.last_seq, now);
      const mac = ctx.sealer.tombstoneMac(head.journalId, fields);
      guards.push(
        guard("EXISTS (SELECT 1 FROM operations WHERE operation_id = ? AND revision = ? AND chain_seq = ?)", row.operation_id, row.revision, row.chain_seq),
      );
      writes.push(
        statement(
          `INSERT INTO operation_tombstones (operation_id, request_digest, phase, receipt_status, attempts, revision, mutation_boundary, last_seq, created_ms, finished_ms, compacted_ms, mac)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
        ),
        statement("DELETE FROM journal_events WHERE operation_id = ?", row.operation_id),
        statement("DELETE FROM control_actions WHERE operation_id = ?", row.operation_id),
        statement("DELETE FROM operations WHERE operation_id = ?", row.operation_id),
      );
      result.eventBodies += row.bodies;
      result.eventsRemoved += row.events;
      result.bytesFreed += row.stored_bytes - TOMBSTONE_BYTES;
    }
    writes.push(
      writeHead(resealHead(ctx.sealer, head, { storedBytes: head.storedBytes + TOMBSTONE_BYTES * rows.length, tombstones: head.tombstones + rows.length })),
    );
    await applyGuarded(ctx.client, "compacting finished operations", { guards, writes });
    return result;
  });
}

/**
 * Folds the oldest events of the journal's own chain (operation-less: access, providers, secrets,
 * breakers, compactions) that are older than the cutoff into the head: the head records the last
 * folded event's place and MAC as its base, and verification starts from there. The journal's own
 * chain changes only with its head, so the fold is guarded on the head it was read with.
 */
export function collapsePrefix(ctx: LibsqlContext, cutoffMs: number): Promise<{ eventsRemoved: number; bytesFreed: number }> {
  return optimisticWrite(ctx, "folding the journal's own chain", async () => {
    const [headResult, blockingResult] = await ctx.client.batch(
      [SELECT_HEAD, statement("SELECT min(chain_seq) AS place FROM journal_events WHERE operation_id IS NULL AND at_ms >= ?", cutoffMs)],
      "read",
    );
    const head = requireHead(ctx, headIn(headResult));
    const blocking = firstRowIn<{ place: number | null }>(blockingResult)?.place ?? null;
    const through = blocking === null ? head.seq : blocking - 1;
    if (through <= head.baseSeq) return { eventsRemoved: 0, bytesFreed: 0 };
    const [lastResult, removedResult] = await ctx.client.batch(
      [
        statement("SELECT mac FROM journal_events WHERE operation_id IS NULL AND chain_seq = ?", through),
        statement("SELECT body FROM journal_events WHERE operation_id IS NULL AND chain_seq <= ?", through),
      ],
      "read",
    );
    const last = firstRowIn<{ mac: string }>(lastResult);
    if (last === undefined) throw new Error(`place ${through} of the journal's own chain is missing; run "errand journal verify"`);
    const removed = rowsIn<{ body: string | null }>(removedResult);
    const bytesFreed = removed.reduce((sum, event) => sum + eventStoredBytes(event.body), 0);
    await applyGuarded(ctx.client, "folding the journal's own chain", {
      guards: [headUnchanged(head)],
      writes: [
        statement("DELETE FROM journal_events WHERE operation_id IS NULL AND chain_seq <= ?", through),
        writeHead(resealHead(ctx.sealer, head, { baseSeq: through, baseMac: last.mac, storedBytes: Math.max(0, head.storedBytes - bytesFreed) })),
      ],
    });
    return { eventsRemoved: removed.length, bytesFreed };
  });
}

/** Journals the compaction itself (an operation-less event, folded away by a later compaction). */
export function recordCompaction(ctx: LibsqlContext, body: Record<string, unknown>): Promise<void> {
  return optimisticWrite(ctx, "journaling a compaction", async () => {
    const head = requireHead(ctx, await selectHead(ctx));
    await applyGuarded(
      ctx.client,
      "journaling a compaction",
      appendJournalEvent(ctx, head, { type: "journal_compacted", operationId: null, body }, ctx.clock()).write,
    );
  });
}
