import type { EventDraft, JournalEventRow, JournalHead } from "../../journal/journalTypes.js";
import { sealNextEvent } from "../../journal/sealEvent.js";
import { requireHead, writeHead } from "./journalHeadSql.js";
import { JournalKeyMismatchError } from "../storeErrors.js";
import type { SqliteContext } from "./sqliteContext.js";

/**
 * Seals `draft` onto the chain and stores it with the new head. Must run inside the write
 * transaction that makes the change the event records. `extraStoredBytes` adds retained data
 * (a task document) to the quota accounting in the same step; `known` passes a head and body text
 * the caller has already read and canonicalized in this transaction.
 */
export function appendJournalEvent(ctx: SqliteContext, draft: EventDraft, atMs: number, extraStoredBytes = 0, known?: { head: JournalHead; bodyText: string }): JournalEventRow {
  const current = known?.head ?? requireHead(ctx);
  // Fail closed: a journal written under another key is never extended (the chain would be unverifiable).
  if (!ctx.sealer.macEquals(ctx.sealer.keyId, current.keyId)) throw new JournalKeyMismatchError();
  const { row, head } = sealNextEvent(ctx.sealer, current, draft, atMs, extraStoredBytes, known?.bodyText);
  ctx
    .sql(
      `INSERT INTO journal_events (seq, operation_id, type, at_ms, body, body_hash, prev_mac, mac)
       VALUES (@seq, @operationId, @type, @atMs, @body, @bodyHash, @prevMac, @mac)`,
    )
    .run(row);
  writeHead(ctx, head);
  return row;
}
