import { canonicalJson } from "../task/canonicalJson.js";
import { checkpointDigest } from "./checkpointDigest.js";
import type { JournalSealer } from "./createJournalSealer.js";
import type { ChainHead, EventDraft, HeadFields, JournalEventRow, JournalHead } from "./journalTypes.js";

/** Storage counted for one event beyond its body (sequence, MACs, hashes, indexes), in bytes. */
export const EVENT_ROW_OVERHEAD_BYTES = 256;
/** Storage counted for one operation tombstone, in bytes. */
export const TOMBSTONE_BYTES = 384;
/** The journal format this errand writes (journalTypes.JournalHead.format). */
export const JOURNAL_FORMAT = 2;

/** Bytes one event counts against the quota. */
export function eventStoredBytes(body: string | null): number {
  return EVENT_ROW_OVERHEAD_BYTES + (body === null ? 0 : Buffer.byteLength(body, "utf8"));
}

/** The head's fields without its MAC, ready to change and sign again. */
function headFields(head: JournalHead): HeadFields {
  const { journalId, keyId, format, seq, mac, baseSeq, baseMac, storedBytes, tombstones, checkpointOperations, checkpointDigest } = head;
  return { journalId, keyId, format, seq, mac, baseSeq, baseMac, storedBytes, tombstones, checkpointOperations, checkpointDigest };
}

/** Signs a head. */
export function sealHead(sealer: JournalSealer, fields: HeadFields): JournalHead {
  return { ...fields, checkpointMac: sealer.headMac(fields) };
}

/** The head of a journal that has no event yet (and an empty checkpoint). */
export function genesisHead(sealer: JournalSealer, journalId: string): JournalHead {
  const genesis = sealer.chainGenesis(journalId, null);
  return sealHead(sealer, {
    journalId,
    keyId: sealer.keyId,
    format: JOURNAL_FORMAT,
    seq: 0,
    mac: genesis,
    baseSeq: 0,
    baseMac: genesis,
    storedBytes: 0,
    tombstones: 0,
    checkpointOperations: 0,
    checkpointDigest: checkpointDigest([]),
  });
}

/** Where a new operation's chain starts. */
export function operationGenesis(sealer: JournalSealer, journalId: string, operationId: string): ChainHead {
  return { seq: 0, mac: sealer.chainGenesis(journalId, operationId) };
}

/** An event sealed onto a chain, before the store gives it its stored seq. */
export type SealedEvent = Omit<JournalEventRow, "seq">;

/**
 * Seals `draft` as the next event of the chain that ends at `chain` (an operation's, or the journal's
 * own for an operation-less draft). The caller stores it, and the chain's new head, in the same
 * transaction that makes the change the event records, holding whatever lock keeps that chain's
 * appends in order (the operation's row; the head row for the journal's own chain).
 */
export function sealChainEvent(
  sealer: JournalSealer,
  journalId: string,
  chain: ChainHead,
  draft: EventDraft,
  atMs: number,
  bodyText?: string,
): { event: SealedEvent; head: ChainHead; bytes: number } {
  const body = bodyText ?? canonicalJson(draft.body);
  const fields = { chainSeq: chain.seq + 1, operationId: draft.operationId, type: draft.type, atMs, bodyHash: sealer.bodyHash(body), prevMac: chain.mac };
  const mac = sealer.eventMac(journalId, fields);
  return { event: { ...fields, body, mac }, head: { seq: fields.chainSeq, mac }, bytes: eventStoredBytes(body) };
}

/** Seals an operation-less event onto the journal's own chain and returns it with the re-signed head. */
export function sealJournalEvent(sealer: JournalSealer, head: JournalHead, draft: EventDraft, atMs: number): { event: SealedEvent; head: JournalHead } {
  const sealed = sealChainEvent(sealer, head.journalId, { seq: head.seq, mac: head.mac }, draft, atMs);
  return { event: sealed.event, head: resealHead(sealer, head, { seq: sealed.head.seq, mac: sealed.head.mac, storedBytes: head.storedBytes + sealed.bytes }) };
}

/** Re-signs a head after some of its fields changed (compaction, checkpoint, accounting). */
export function resealHead(sealer: JournalSealer, head: JournalHead, changes: Partial<HeadFields>): JournalHead {
  return sealHead(sealer, { ...headFields(head), ...changes });
}
