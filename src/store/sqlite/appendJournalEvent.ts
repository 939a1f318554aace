import type { EventDraft, JournalEventRow } from "../../journal/journalTypes.js";
import { sealJournalEvent } from "../../journal/sealEvent.js";
import type { SealedEvent } from "../../journal/sealEvent.js";
import { requireHead, writeHead } from "./journalHeadSql.js";
import type { SqliteContext } from "./sqliteContext.js";

/** Stores one sealed event; the store numbers it (seq: one past the highest stored). */
export function insertEvent(ctx: SqliteContext, event: SealedEvent): JournalEventRow {
  const result = ctx
    .sql(
      `INSERT INTO journal_events (chain_seq, operation_id, type, at_ms, body, body_hash, prev_mac, mac)
       VALUES (@chainSeq, @operationId, @type, @atMs, @body, @bodyHash, @prevMac, @mac)`,
    )
    .run(event);
  return { ...event, seq: Number(result.lastInsertRowid) };
}

/**
 * Seals an operation-less `draft` onto the journal's own chain and stores it with the re-signed head.
 * Must run inside the write transaction that makes the change the event records. Operation events
 * never come here: they go onto their operation's chain (applyTransition) and leave the head alone.
 */
export function appendJournalEvent(ctx: SqliteContext, draft: EventDraft, atMs: number): JournalEventRow {
  const { event, head } = sealJournalEvent(ctx.sealer, requireHead(ctx), draft, atMs);
  const row = insertEvent(ctx, event);
  writeHead(ctx, head);
  return row;
}
