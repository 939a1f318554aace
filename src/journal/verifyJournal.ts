import { authenticateOperationState } from "./authenticateOperationState.js";
import { checkpointDigest } from "./checkpointDigest.js";
import type { JournalSealer } from "./createJournalSealer.js";
import type { ChainHead, CheckpointEntry, JournalEventRow, JournalHead, OperationTombstone } from "./journalTypes.js";
import type { OperationStateFields } from "./operationEvent.js";
import { JOURNAL_FORMAT } from "./sealEvent.js";
import { verifyLegacyJournal } from "./verifyLegacyJournal.js";

/** Where verification reads from; the Store provides exactly these. */
export interface JournalSource {
  readJournalHead(): Promise<JournalHead | undefined>;
  /** Every stored event by stored seq (only a format-1 journal is read this way). */
  readJournalEvents(afterSeq: number, limit: number): Promise<JournalEventRow[]>;
  /** The journal's own chain (operation-less events), by chainSeq. */
  readJournalChain(afterChainSeq: number, limit: number): Promise<JournalEventRow[]>;
  readTombstones(afterOperationId: string, limit: number): Promise<OperationTombstone[]>;
  /** Live operations by id, each with its latest event and the chain head its row names. */
  readOperationStates(
    afterOperationId: string,
    limit: number,
  ): Promise<{ operation: OperationStateFields; latestEvent: JournalEventRow | undefined; chainHead: ChainHead }[]>;
  /** Every stored event of one operation, by stored seq. */
  readOperationEvents(operationId: string): Promise<JournalEventRow[]>;
  /** How many stored events belong to some operation (live or not). */
  countOperationEvents(): Promise<number>;
  /** The latest checkpoint's list, by operation id. */
  readCheckpoint(afterOperationId: string, limit: number): Promise<CheckpointEntry[]>;
}

/**
 * Why verification stopped. Reasons are short and opaque on purpose: they say what failed, never
 * the content of the data that failed.
 */
export type JournalFault =
  | "wrong_key" // the journal was written under another key (or its key id was altered)
  | "head_mac" // the head was altered
  | "tombstone_mac" // a tombstone was altered or forged
  | "tombstone_count" // a tombstone was deleted or added
  | "checkpoint" // the stored checkpoint list does not match the digest the head signs
  | "missing_event" // an expected event of a chain is absent (deletion, or truncation of a chain's tail)
  | "chain" // the event does not follow the previous one of its chain (insertion, reordering, splicing)
  | "mac" // the event's fields do not match its MAC (modification)
  | "body_hash" // the event's body does not match its hash (modification)
  | "missing_body" // a body was removed without a tombstone allowing it
  | "beyond_head" // events exist past the end of their chain as its head names it (insertion at the end)
  | "orphan_event" // events of an operation that is not stored (its row was deleted, its events left)
  | "missing_operation" // an operation the checkpoint lists is neither stored nor compacted (deleted)
  | "rolled_back" // an operation's chain no longer reaches the head the checkpoint recorded for it
  | "operation_state"; // an operation's stored row does not match its latest event (the row was edited)

export type JournalVerdict =
  | {
      ok: true;
      /** Events checked in all chains. */
      events: number;
      /** End and folded base of the journal's own chain. */
      headSeq: number;
      baseSeq: number;
      tombstones: number;
      /** Live operations whose chains were checked, and how many the latest checkpoint lists. */
      operations: number;
      checkpointed: number;
    }
  | {
      ok: false;
      fault: JournalFault;
      /** The first bad event's stored sequence number (null when the fault is not one event's). */ seq: number | null;
      operationId: string | null;
      message: string;
      eventsChecked: number;
    };

const PAGE = 1000;

/**
 * Verifies the whole journal (format 2; a format-1 journal not converted yet is checked under its own
 * rules, verifyLegacyJournal):
 * - the head's MAC (key id first, so a wrong key is named as such), every tombstone and their count;
 * - the checkpoint list against the digest and count the head signs;
 * - the journal's own chain from its folded base to the head;
 * - every live operation's chain from its genesis value: contiguous places, each MAC over the previous
 *   one's, each body against its hash, the last event exactly the head its row names, and the row's
 *   state equal to that event's;
 * - no stored event of an operation that is not live (a row deleted, its events left);
 * - every operation the checkpoint lists is still live with its chain passing through the head
 *   recorded for it, or compacted under a tombstone.
 * What this cannot detect (an operation created and deleted, or rolled back row and events together,
 * between two checkpoints; a rollback of the whole database) is in docs/SECURITY.md. The chains are
 * read page by page, so `source` must read one snapshot (Store.readJournalSnapshot) whenever anything
 * else may write: an event appended between two reads would look like an insertion.
 */
export async function verifyJournal(source: JournalSource, sealer: JournalSealer): Promise<JournalVerdict> {
  let checked = 0;
  const fail = (fault: JournalFault, seq: number | null, message: string, operationId: string | null = null): JournalVerdict => ({
    ok: false,
    fault,
    seq,
    operationId,
    message,
    eventsChecked: checked,
  });

  const head = await source.readJournalHead();
  if (head === undefined) {
    const any = await source.readJournalEvents(0, 1);
    return any.length === 0
      ? { ok: true, events: 0, headSeq: 0, baseSeq: 0, tombstones: 0, operations: 0, checkpointed: 0 }
      : fail("head_mac", null, "The journal has events but no head.");
  }
  if (!sealer.macEquals(sealer.keyId, head.keyId)) {
    return fail(
      "wrong_key",
      null,
      "The journal was written with a different key than the one given: no event can be authenticated (is ERRAND_HOME/keys/master.key the right one?).",
    );
  }
  if (head.format !== JOURNAL_FORMAT)
    return verifyLegacyJournal(
      head,
      await readAll<JournalEventRow, number>(
        (after) => source.readJournalEvents(after, PAGE),
        (e) => e.seq,
        0,
      ),
      await readTombstones(source),
      sealer,
    );
  const { checkpointMac, ...headFields } = head;
  if (!sealer.macEquals(sealer.headMac(headFields), checkpointMac))
    return fail("head_mac", null, "The journal head does not match its MAC: the record of where the journal ends and what it last checkpointed was altered.");

  // Tombstones: each authenticated; their number must match the head.
  const tombstones = await readTombstones(source);
  for (const tombstone of tombstones) {
    const { mac, ...fields } = tombstone;
    if (!sealer.macEquals(sealer.tombstoneMac(head.journalId, fields), mac))
      return fail("tombstone_mac", null, `The tombstone of operation ${tombstone.operationId} does not match its MAC.`, tombstone.operationId);
  }
  if (tombstones.length !== head.tombstones)
    return fail("tombstone_count", null, `The head records ${head.tombstones} tombstones but ${tombstones.length} are stored.`);
  const compacted = new Set(tombstones.map((t) => t.operationId));

  // The checkpoint list: exactly the one the head signs.
  const entries: CheckpointEntry[] = [];
  for (let after = ""; ;) {
    const page = await source.readCheckpoint(after, PAGE);
    entries.push(...page);
    if (page.length < PAGE) break;
    after = page[page.length - 1]?.operationId ?? after;
  }
  if (entries.length !== head.checkpointOperations || !sealer.macEquals(head.checkpointDigest, checkpointDigest(entries))) {
    return fail(
      "checkpoint",
      null,
      `The stored checkpoint (${entries.length} operations) is not the one the head signs (${head.checkpointOperations}): it was edited, shortened or extended.`,
    );
  }
  const pending = new Map(entries.map((e) => [e.operationId, e]));

  // The journal's own chain.
  const journalChain = await verifyChain(
    sealer,
    head.journalId,
    null,
    { seq: head.baseSeq, mac: head.baseMac },
    (after) => source.readJournalChain(after, PAGE),
    head.seq,
  );
  checked += journalChain.checked;
  if (!journalChain.ok) return fail(journalChain.fault, journalChain.seq, journalChain.message);
  if (!sealer.macEquals(head.mac, journalChain.end.mac)) return fail("chain", head.seq, "The last event of the journal's own chain does not match its head.");

  // Every live operation's chain, its row, and the checkpoint's record of it.
  let operations = 0;
  let operationEvents = 0;
  for (let after = ""; ;) {
    const page = await source.readOperationStates(after, PAGE);
    for (const { operation, latestEvent, chainHead } of page) {
      const id = operation.operationId;
      const events = await source.readOperationEvents(id);
      const macs: string[] = [];
      const chain = await verifyChain(
        sealer,
        head.journalId,
        id,
        { seq: 0, mac: sealer.chainGenesis(head.journalId, id) },
        onePage(events, macs),
        chainHead.seq,
      );
      checked += chain.checked;
      if (!chain.ok) return fail(chain.fault, chain.seq, chain.message, id);
      if (!sealer.macEquals(chainHead.mac, chain.end.mac))
        return fail("chain", null, `Operation ${id}'s last event is not the one its row names as the end of its chain.`, id);
      const state = authenticateOperationState(operation, latestEvent, sealer, head.journalId, chainHead);
      if (!state.ok) return fail("operation_state", null, `Operation ${id}'s stored row cannot be trusted: ${state.reason}.`, id);
      const recorded = pending.get(id);
      if (recorded !== undefined) {
        if (
          recorded.chainSeq > macs.length ||
          !sealer.macEquals(recorded.chainMac, macs[recorded.chainSeq - 1] ?? (recorded.chainSeq === 0 ? sealer.chainGenesis(head.journalId, id) : ""))
        ) {
          return fail(
            "rolled_back",
            null,
            `Operation ${id}'s chain no longer passes through event ${recorded.chainSeq}, where the last checkpoint saw it: its row and events were rolled back or replaced.`,
            id,
          );
        }
        pending.delete(id);
      }
      operations += 1;
      operationEvents += events.length;
    }
    if (page.length < PAGE) break;
    after = page[page.length - 1]?.operation.operationId ?? after;
  }
  const stored = await source.countOperationEvents();
  if (stored !== operationEvents)
    return fail(
      "orphan_event",
      null,
      `${stored - operationEvents} stored event(s) belong to no stored operation: an operation's row was deleted and its events left.`,
    );
  for (const id of pending.keys()) {
    if (!compacted.has(id))
      return fail("missing_operation", null, `Operation ${id} was in the last checkpoint but is neither stored nor compacted: it was deleted.`, id);
  }
  return {
    ok: true,
    events: checked,
    headSeq: head.seq,
    baseSeq: head.baseSeq,
    tombstones: tombstones.length,
    operations,
    checkpointed: head.checkpointOperations,
  };
}

type ChainCheck = { ok: true; end: ChainHead; checked: number } | { ok: false; fault: JournalFault; seq: number | null; message: string; checked: number };

/**
 * Walks one chain from `start`: contiguous places, each event's prevMac the MAC before it, its MAC,
 * its body against its hash, its operation the chain's; it must end exactly at place `endSeq`.
 */
async function verifyChain(
  sealer: JournalSealer,
  journalId: string,
  operationId: string | null,
  start: ChainHead,
  read: (afterChainSeq: number) => Promise<JournalEventRow[]>,
  endSeq: number,
): Promise<ChainCheck> {
  const owner = operationId === null ? "the journal's own chain" : `operation ${operationId}'s chain`;
  let end = start;
  let checked = 0;
  const fault = (f: JournalFault, seq: number | null, message: string): ChainCheck => ({ ok: false, fault: f, seq, message, checked });
  for (;;) {
    const page = await read(end.seq);
    for (const event of page) {
      const place = end.seq + 1;
      if (event.operationId !== operationId) return fault("chain", event.seq, `Event ${event.seq} does not belong to ${owner}.`);
      if (event.chainSeq > endSeq)
        return fault(
          "beyond_head",
          event.seq,
          `Event ${event.seq} (place ${event.chainSeq} of ${owner}) lies beyond the end its head names (${endSeq}): it was inserted.`,
        );
      if (event.chainSeq !== place)
        return fault("missing_event", event.seq, `Place ${place} of ${owner} is missing: the next stored event (${event.seq}) is place ${event.chainSeq}.`);
      if (!sealer.macEquals(end.mac, event.prevMac))
        return fault(
          "chain",
          event.seq,
          `Event ${event.seq} does not follow the event before it in ${owner}: events were inserted, removed or reordered here.`,
        );
      const { chainSeq, type, atMs, bodyHash, prevMac } = event;
      if (!sealer.macEquals(sealer.eventMac(journalId, { chainSeq, operationId, type, atMs, bodyHash, prevMac }), event.mac))
        return fault("mac", event.seq, `Event ${event.seq} does not match its MAC: it was modified.`);
      if (event.body === null) return fault("missing_body", event.seq, `Event ${event.seq} has lost its body.`);
      if (!sealer.macEquals(sealer.bodyHash(event.body), event.bodyHash))
        return fault("body_hash", event.seq, `Event ${event.seq}'s body does not match its hash: it was modified.`);
      end = { seq: place, mac: event.mac };
      checked += 1;
    }
    if (page.length < PAGE) break;
  }
  if (end.seq !== endSeq) return fault("missing_event", null, `${owner} ends at place ${end.seq} but its head names place ${endSeq}: its tail was cut off.`);
  return { ok: true, end, checked };
}

/** An operation's events (already read whole) as one page, noting each MAC by place. */
function onePage(events: readonly JournalEventRow[], macs: string[]): (after: number) => Promise<JournalEventRow[]> {
  let given = false;
  return () => {
    if (given) return Promise.resolve([]);
    given = true;
    for (const e of events) macs.push(e.mac);
    return Promise.resolve([...events]);
  };
}

async function readTombstones(source: JournalSource): Promise<OperationTombstone[]> {
  return readAll(
    async (after) => source.readTombstones(after, PAGE),
    (t) => t.operationId,
    "",
  );
}

async function readAll<T, K>(read: (after: K) => Promise<T[]>, key: (item: T) => K, first: K): Promise<T[]> {
  const all: T[] = [];
  let after = first;
  for (;;) {
    const page = await read(after);
    all.push(...page);
    if (page.length < PAGE) return all;
    const last = page[page.length - 1];
    if (last === undefined) return all;
    after = key(last);
  }
}
