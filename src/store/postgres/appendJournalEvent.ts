import type { EventDraft, JournalEventRow, JournalHead } from "../../journal/journalTypes.js";
import { sealNextEvent } from "../../journal/sealEvent.js";
import { headUpdate, lockHead } from "./journalHeadPg.js";
import type { PgTx } from "./pgContext.js";

/** INSERT of one sealed event; parameters $1..$8. */
export const INSERT_EVENT = `INSERT INTO journal_events (seq, operation_id, type, at_ms, body, body_hash, prev_mac, mac) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`;

export function eventValues(row: JournalEventRow): unknown[] {
  return [row.seq, row.operationId, row.type, row.atMs, row.body, row.bodyHash, row.prevMac, row.mac];
}

/**
 * Seals `draft` onto the chain (src/journal/sealEvent, the one home of the rule) and stores it with
 * the new head in one statement. Must run inside the write transaction that makes the change the
 * event records. `extraStoredBytes` adds retained data (a task document) to the quota accounting;
 * `known` passes a head this transaction has already locked and a body it has canonicalized.
 */
export async function appendJournalEvent(tx: PgTx, draft: EventDraft, atMs: number, extraStoredBytes = 0, known?: { head: JournalHead; bodyText: string }): Promise<JournalEventRow> {
  const current = known?.head ?? (await lockHead(tx));
  const { row, head } = sealNextEvent(tx.ctx.sealer, current, draft, atMs, extraStoredBytes, known?.bodyText);
  const update = headUpdate(head, 9);
  await tx.run(`WITH event AS (${INSERT_EVENT}) ${update.sql}`, [...eventValues(row), ...update.values]);
  tx.head = head;
  return row;
}
