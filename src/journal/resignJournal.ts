import { checkpointDigest } from "./checkpointDigest.js";
import type { JournalSealer } from "./createJournalSealer.js";
import type { ChainHead, CheckpointEntry, JournalEventRow, JournalHead, OperationTombstone, TombstoneFields } from "./journalTypes.js";
import type { SealedEvent } from "./sealEvent.js";
import { JOURNAL_FORMAT, operationGenesis, sealHead, sealJournalEvent } from "./sealEvent.js";
import type { JournalSource, JournalVerdict } from "./verifyJournal.js";
import { verifyJournal } from "./verifyJournal.js";

/** The new MACs of one stored event (its stored seq, place, type, time and body are unchanged). */
export interface EventMacUpdate {
  seq: number;
  prevMac: string;
  mac: string;
}

/**
 * What re-signing reads and writes. A store provides it inside the one transaction of a key rotation
 * (store/rotateKeyInTransaction), so the journal is read, checked and rewritten as one snapshot.
 */
export interface JournalResigning extends JournalSource {
  writeEventMacs(updates: readonly EventMacUpdate[]): Promise<void>;
  /** The end of an operation's chain as its row names it (its place is unchanged). */
  writeOperationChainMac(operationId: string, chainMac: string): Promise<void>;
  writeTombstoneMac(operationId: string, mac: string): Promise<void>;
  replaceCheckpoint(entries: readonly CheckpointEntry[]): Promise<void>;
  /** Rewrites the head row whole, its key id included. */
  replaceHead(head: JournalHead): Promise<void>;
  /** Stores one sealed event of the journal's own chain and the head that now ends there. */
  insertJournalEvent(event: SealedEvent, head: JournalHead): Promise<void>;
}

export type ResignOutcome =
  | {
      ok: true;
      /** The head as the outgoing key signed it, and as the new key signs it now. */
      oldHead: JournalHead;
      head: JournalHead;
      events: number;
      operations: number;
      tombstones: number;
    }
  | { ok: false; verdict: Extract<JournalVerdict, { ok: false }> };

const PAGE = 1000;

/**
 * Moves a journal from one key to the next: verifies it whole under `from` (verifyJournal: a journal
 * that does not verify is never re-signed, so nothing changed without the old key is blessed by the
 * new one), then recomputes every MAC under `to` from the same content: every event of every chain
 * (each chain from its genesis value under `to`; the journal's own chain from its folded base, whose
 * MAC stays as it was, an opaque starting value now covered by the new head), each operation row's
 * chain end, every tombstone, a fresh checkpoint of every live operation, and the head with the new
 * key id. Stored seqs, places, types, times and bodies are untouched. The caller then records the
 * rotation (recordKeyRotation) in the same transaction.
 */
export async function resignJournal(journal: JournalResigning, from: JournalSealer, to: JournalSealer): Promise<ResignOutcome> {
  const oldHead = await journal.readJournalHead();
  if (oldHead === undefined) throw new Error("the journal head is missing: the database was not initialized by errand or was damaged");
  const verdict = await verifyJournal(journal, from);
  if (!verdict.ok) return { ok: false, verdict };
  if (oldHead.format !== JOURNAL_FORMAT) throw new Error(`a journal in format ${oldHead.format} verified but cannot be re-signed`);
  const journalId = oldHead.journalId;
  let events = 0;

  const base: ChainHead = oldHead.baseSeq === 0 ? { seq: 0, mac: to.chainGenesis(journalId, null) } : { seq: oldHead.baseSeq, mac: oldHead.baseMac };
  let journalEnd = base;
  for (;;) {
    const page = await journal.readJournalChain(journalEnd.seq, PAGE);
    const resigned = resignChain(to, journalId, journalEnd, page);
    await journal.writeEventMacs(resigned.updates);
    journalEnd = resigned.end;
    events += page.length;
    if (page.length < PAGE) break;
  }

  const checkpoint: CheckpointEntry[] = [];
  for (let after = ""; ;) {
    const page = await journal.readOperationStates(after, PAGE);
    for (const { operation } of page) {
      const id = operation.operationId;
      const chain = await journal.readOperationEvents(id);
      const resigned = resignChain(to, journalId, operationGenesis(to, journalId, id), chain);
      await journal.writeEventMacs(resigned.updates);
      await journal.writeOperationChainMac(id, resigned.end.mac);
      checkpoint.push({ operationId: id, chainSeq: resigned.end.seq, chainMac: resigned.end.mac });
      events += chain.length;
    }
    if (page.length < PAGE) break;
    after = page[page.length - 1]?.operation.operationId ?? after;
  }

  let tombstones = 0;
  for (let after = ""; ;) {
    const page = await journal.readTombstones(after, PAGE);
    for (const tombstone of page) await journal.writeTombstoneMac(tombstone.operationId, to.tombstoneMac(journalId, tombstoneFields(tombstone)));
    tombstones += page.length;
    if (page.length < PAGE) break;
    after = page[page.length - 1]?.operationId ?? after;
  }

  await journal.replaceCheckpoint(checkpoint);
  const head = sealHead(to, {
    journalId,
    format: oldHead.format,
    baseSeq: oldHead.baseSeq,
    storedBytes: oldHead.storedBytes,
    tombstones: oldHead.tombstones,
    keyId: to.keyId,
    seq: journalEnd.seq,
    mac: journalEnd.mac,
    baseMac: base.mac,
    checkpointOperations: checkpoint.length,
    checkpointDigest: checkpointDigest(checkpoint),
  });
  await journal.replaceHead(head);
  return { ok: true, oldHead, head, events, operations: checkpoint.length, tombstones };
}

/**
 * Appends the `key_rotated` event to the journal's own chain under the new key: the old and new key
 * ids, the MAC of the head the old key last signed, what the rotation re-sealed and re-signed
 * (`details`: counts only), and the old key's handover MAC over the ids, the time and that head MAC.
 * Returns the head that ends with it.
 */
export async function recordKeyRotation(
  journal: JournalResigning,
  rotation: { from: JournalSealer; to: JournalSealer; oldHead: JournalHead; head: JournalHead; atMs: number },
  details: Record<string, unknown>,
): Promise<JournalHead> {
  const { from, to, oldHead, head, atMs } = rotation;
  const handover = from.keyHandoverMac(head.journalId, { fromKeyId: from.keyId, toKeyId: to.keyId, atMs, headMac: oldHead.checkpointMac });
  const body = { fromKeyId: from.keyId, toKeyId: to.keyId, oldHeadMac: oldHead.checkpointMac, handover, ...details };
  const sealed = sealJournalEvent(to, head, { type: "key_rotated", operationId: null, body }, atMs);
  await journal.insertJournalEvent(sealed.event, sealed.head);
  return sealed.head;
}

/** What a tombstone's MAC covers: every field but the MAC itself. */
function tombstoneFields(t: OperationTombstone): TombstoneFields {
  return {
    operationId: t.operationId,
    requestDigest: t.requestDigest,
    phase: t.phase,
    receiptStatus: t.receiptStatus,
    attempts: t.attempts,
    revision: t.revision,
    mutationBoundary: t.mutationBoundary,
    lastSeq: t.lastSeq,
    createdMs: t.createdMs,
    finishedMs: t.finishedMs,
    compactedMs: t.compactedMs,
  };
}

/** One chain's events (in chain order, already verified) re-signed under `sealer` from `start`. */
function resignChain(
  sealer: JournalSealer,
  journalId: string,
  start: ChainHead,
  events: readonly JournalEventRow[],
): { updates: EventMacUpdate[]; end: ChainHead } {
  let end = start;
  const updates: EventMacUpdate[] = [];
  for (const event of events) {
    const fields = { chainSeq: event.chainSeq, operationId: event.operationId, type: event.type, atMs: event.atMs, bodyHash: event.bodyHash, prevMac: end.mac };
    const mac = sealer.eventMac(journalId, fields);
    updates.push({ seq: event.seq, prevMac: end.mac, mac });
    end = { seq: event.chainSeq, mac };
  }
  return { updates, end };
}
