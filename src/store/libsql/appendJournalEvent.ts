import type { EventDraft, JournalHead } from "../../journal/journalTypes.js";
import type { SealedEvent } from "../../journal/sealEvent.js";
import { sealJournalEvent } from "../../journal/sealEvent.js";
import type { GuardedWrite } from "./batchGuard.js";
import { headUnchanged, writeHead } from "./journalHead.js";
import type { LibsqlContext } from "./libsqlContext.js";
import type { LibsqlStatement } from "./LibsqlClientLike.js";
import { statement } from "./LibsqlClientLike.js";

/** Stores one sealed event; SQLite numbers it (seq: one past the highest stored). */
export function insertEvent(event: SealedEvent): LibsqlStatement {
  return statement(
    "INSERT INTO journal_events (chain_seq, operation_id, type, at_ms, body, body_hash, prev_mac, mac) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    event.chainSeq,
    event.operationId,
    event.type,
    event.atMs,
    event.body,
    event.bodyHash,
    event.prevMac,
    event.mac,
  );
}

/**
 * Seals an operation-less `draft` onto the journal's own chain from `head` (as read, and checked with
 * journalHead.requireHead) and returns the write that stores it with the re-signed head, guarded on
 * that head: an append that raced another is refused whole, never chained from a stale place.
 */
export function appendJournalEvent(ctx: LibsqlContext, head: JournalHead, draft: EventDraft, atMs: number): { write: GuardedWrite; head: JournalHead } {
  const sealed = sealJournalEvent(ctx.sealer, head, draft, atMs);
  return { write: { guards: [headUnchanged(head)], writes: [insertEvent(sealed.event), writeHead(sealed.head)] }, head: sealed.head };
}
