import { checkpointDigest } from "./checkpointDigest.js";
import type { JournalSealer } from "./createJournalSealer.js";
import type { ChainHead, CheckpointEntry, JournalEventRow, JournalHead, OperationTombstone } from "./journalTypes.js";
import { eventStoredBytes, JOURNAL_FORMAT, operationGenesis, sealHead, TOMBSTONE_BYTES } from "./sealEvent.js";
import type { JournalVerdict } from "./verifyJournal.js";
import { verifyLegacyJournal } from "./verifyLegacyJournal.js";

/** What a store holds of a format-1 journal when it converts it (everything, read in the converting transaction). */
export interface LegacyJournal {
  head: JournalHead;
  /** Every stored event, by stored seq. */
  events: readonly JournalEventRow[];
  tombstones: readonly OperationTombstone[];
  /** Every live operation and the bytes of its stored task document. */
  operations: readonly { operationId: string; taskBytes: number }[];
}

/** The conversion a store applies in the same transaction, row by row. */
export interface JournalUpgrade {
  /** Events kept, re-sealed into their chain: stored seq unchanged, chainSeq, prevMac and mac new. */
  resealed: { seq: number; chainSeq: number; prevMac: string; mac: string }[];
  /** Stored seqs of events of compacted operations (their tombstones say what became of them). */
  dropped: number[];
  /** Each live operation's chain head and the bytes its row now counts (task document and events). */
  operations: { operationId: string; chain: ChainHead; storedBytes: number }[];
  /** The first checkpoint: every live operation at its converted head. */
  checkpoint: CheckpointEntry[];
  head: JournalHead;
}

/**
 * Converts a format-1 journal into per-operation chains, after verifying it whole under the old rules
 * (a journal that does not verify is never converted: its faults stay where `journal verify` reports
 * them). Each live operation's events, in stored order, become its chain 1..n from its genesis value;
 * the operation-less events become the journal's own chain; events of compacted operations are
 * dropped (their tombstones remain, authenticated as before); an event of an operation that is neither
 * live nor compacted means a deleted operation, and refuses the conversion. The head is re-signed in
 * format 2 with a checkpoint of every live operation, so the conversion itself is the first checkpoint.
 */
export function upgradeLegacyJournal(
  legacy: LegacyJournal,
  sealer: JournalSealer,
): { ok: true; upgrade: JournalUpgrade } | { ok: false; verdict: JournalVerdict } {
  const verdict = verifyLegacyJournal(legacy.head, legacy.events, legacy.tombstones, sealer);
  if (!verdict.ok) return { ok: false, verdict };
  const journalId = legacy.head.journalId;
  const compacted = new Set(legacy.tombstones.map((t) => t.operationId));
  const live = new Map(
    legacy.operations.map((op) => [op.operationId, { chain: operationGenesis(sealer, journalId, op.operationId), storedBytes: op.taskBytes }]),
  );
  let journalChain: ChainHead = { seq: 0, mac: sealer.chainGenesis(journalId, null) };
  let journalBytes = 0;
  const resealed: JournalUpgrade["resealed"] = [];
  const dropped: number[] = [];
  for (const event of legacy.events) {
    let chain: ChainHead;
    if (event.operationId === null) chain = journalChain;
    else {
      const op = live.get(event.operationId);
      if (op === undefined) {
        if (compacted.has(event.operationId)) {
          dropped.push(event.seq);
          continue;
        }
        const message = `Event ${event.seq} belongs to operation ${event.operationId}, which is neither stored nor compacted: the operation was deleted. The journal was not converted.`;
        return {
          ok: false,
          verdict: { ok: false, fault: "missing_operation", seq: event.seq, operationId: event.operationId, message, eventsChecked: verdict.events },
        };
      }
      chain = op.chain;
    }
    const fields = {
      chainSeq: chain.seq + 1,
      operationId: event.operationId,
      type: event.type,
      atMs: event.atMs,
      bodyHash: event.bodyHash,
      prevMac: chain.mac,
    };
    const mac = sealer.eventMac(journalId, fields);
    resealed.push({ seq: event.seq, chainSeq: fields.chainSeq, prevMac: fields.prevMac, mac });
    const next = { seq: fields.chainSeq, mac };
    if (event.operationId === null) {
      journalChain = next;
      journalBytes += eventStoredBytes(event.body);
    } else {
      const op = live.get(event.operationId);
      if (op !== undefined) {
        op.chain = next;
        op.storedBytes += eventStoredBytes(event.body);
      }
    }
  }
  const operations = [...live.entries()].map(([operationId, op]) => ({ operationId, chain: op.chain, storedBytes: op.storedBytes }));
  const checkpoint = operations.map((op) => ({ operationId: op.operationId, chainSeq: op.chain.seq, chainMac: op.chain.mac }));
  const genesis = sealer.chainGenesis(journalId, null);
  const head = sealHead(sealer, {
    journalId,
    keyId: legacy.head.keyId,
    format: JOURNAL_FORMAT,
    seq: journalChain.seq,
    mac: journalChain.mac,
    baseSeq: 0,
    baseMac: genesis,
    storedBytes: journalBytes + TOMBSTONE_BYTES * legacy.tombstones.length,
    tombstones: legacy.tombstones.length,
    checkpointOperations: checkpoint.length,
    checkpointDigest: checkpointDigest(checkpoint),
  });
  return { ok: true, upgrade: { resealed, dropped, operations, checkpoint, head } };
}
