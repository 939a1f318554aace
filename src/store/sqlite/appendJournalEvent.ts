import type { EventDraft, JournalEventRow } from "../../journal/journalTypes.js";
import { sealNextEvent } from "../../journal/sealEvent.js";
import { requireHead, writeHead } from "./journalHeadSql.js";
import type { SqliteContext } from "./sqliteContext.js";

/**
 * Seals `draft` onto the chain and stores it with the new head. Must run inside the write
 * transaction that makes the change the event records. `extraStoredBytes` adds retained data
 * (a task document) to the quota accounting in the same step.
 */
export function appendJournalEvent(ctx: SqliteContext, draft: EventDraft, atMs: number, extraStoredBytes = 0): JournalEventRow {
  const { row, head } = sealNextEvent(ctx.sealer, requireHead(ctx), draft, atMs, extraStoredBytes);
  ctx
    .sql(
      `INSERT INTO journal_events (seq, operation_id, type, at_ms, body, body_hash, prev_mac, mac)
       VALUES (@seq, @operationId, @type, @atMs, @body, @bodyHash, @prevMac, @mac)`,
    )
    .run(row);
  writeHead(ctx, head);
  return row;
}
