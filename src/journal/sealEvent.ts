import { canonicalJson } from "../task/canonicalJson.js";
import type { JournalSealer } from "./createJournalSealer.js";
import type { EventDraft, HeadFields, JournalEventRow, JournalHead } from "./journalTypes.js";

/** Storage counted for one event beyond its body (sequence, MACs, hashes, indexes), in bytes. */
export const EVENT_ROW_OVERHEAD_BYTES = 256;
/** Storage counted for one operation tombstone, in bytes. */
export const TOMBSTONE_BYTES = 384;

/** Bytes one event counts against the quota. */
export function eventStoredBytes(body: string | null): number {
  return EVENT_ROW_OVERHEAD_BYTES + (body === null ? 0 : Buffer.byteLength(body, "utf8"));
}

/** The head's fields without its MAC, ready to change and sign again. */
function headFields(head: JournalHead): HeadFields {
  const { journalId, keyId, seq, mac, baseSeq, baseMac, storedBytes, tombstones } = head;
  return { journalId, keyId, seq, mac, baseSeq, baseMac, storedBytes, tombstones };
}

/** Signs a head checkpoint. */
export function sealHead(sealer: JournalSealer, fields: HeadFields): JournalHead {
  return { ...fields, checkpointMac: sealer.headMac(fields) };
}

/** The head of a journal that has no event yet. */
export function genesisHead(sealer: JournalSealer, journalId: string): JournalHead {
  const genesis = sealer.genesis(journalId);
  return sealHead(sealer, { journalId, keyId: sealer.keyId, seq: 0, mac: genesis, baseSeq: 0, baseMac: genesis, storedBytes: 0, tombstones: 0 });
}

/**
 * Seals the next event on top of `head` and returns the row to store with the new head. The caller
 * stores both in the same transaction that changes the state the event describes.
 */
export function sealNextEvent(sealer: JournalSealer, head: JournalHead, draft: EventDraft, atMs: number, extraStoredBytes = 0, bodyText?: string): { row: JournalEventRow; head: JournalHead } {
  const body = bodyText ?? canonicalJson(draft.body);
  const fields = { seq: head.seq + 1, operationId: draft.operationId, type: draft.type, atMs, bodyHash: sealer.bodyHash(body), prevMac: head.mac };
  const mac = sealer.eventMac(head.journalId, fields);
  const next = sealHead(sealer, { ...headFields(head), seq: fields.seq, mac, storedBytes: head.storedBytes + eventStoredBytes(body) + extraStoredBytes });
  return { row: { ...fields, body, mac }, head: next };
}

/** Re-signs a head after fields other than the last event changed (compaction, accounting). */
export function resealHead(sealer: JournalSealer, head: JournalHead, changes: Partial<HeadFields>): JournalHead {
  return sealHead(sealer, { ...headFields(head), ...changes });
}
