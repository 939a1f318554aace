import type { EventDraft, JournalEventRow } from "../../journal/journalTypes.js";
import type { SealedEvent } from "../../journal/sealEvent.js";
import { sealJournalEvent } from "../../journal/sealEvent.js";
import { headUpdate, lockHead } from "./journalHeadPg.js";
import type { PgTx } from "./pgContext.js";

/** INSERT of one sealed event, numbered by the table's identity; parameters $1..$8; returns seq. */
export const INSERT_EVENT = `INSERT INTO journal_events (chain_seq, operation_id, type, at_ms, body, body_hash, prev_mac, mac) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING seq`;

export function eventValues(event: SealedEvent): unknown[] {
  return [event.chainSeq, event.operationId, event.type, event.atMs, event.body, event.bodyHash, event.prevMac, event.mac];
}

/**
 * Seals an operation-less `draft` onto the journal's own chain (src/journal/sealEvent, the one home of
 * the rule) and stores it with the re-signed head in one statement. Must run inside the write
 * transaction that makes the change the event records. Operation events never come here: they go onto
 * their operation's chain (applyTransition) and leave the head alone.
 */
export async function appendJournalEvent(tx: PgTx, draft: EventDraft, atMs: number): Promise<JournalEventRow> {
  const { event, head } = sealJournalEvent(tx.ctx.sealer, await lockHead(tx), draft, atMs);
  const update = headUpdate(head, 9);
  const stored = await tx.one<{ seq: number }>(`WITH head AS (${update.sql}) ${INSERT_EVENT}`, [...eventValues(event), ...update.values]);
  tx.head = head;
  return { ...event, seq: Number(stored?.seq) };
}
