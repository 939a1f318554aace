import { authenticateOperationState } from "./authenticateOperationState.js";
import type { JournalSealer } from "./createJournalSealer.js";
import type { JournalEventRow, JournalHead, OperationTombstone } from "./journalTypes.js";
import type { OperationStateFields } from "./operationEvent.js";

/** Where verification reads from; the Store provides exactly these. */
export interface JournalSource {
  readJournalHead(): Promise<JournalHead | undefined>;
  readJournalEvents(afterSeq: number, limit: number): Promise<JournalEventRow[]>;
  readTombstones(afterOperationId: string, limit: number): Promise<OperationTombstone[]>;
  /** Live operations by id with their latest event; when given, every stored row is checked against the journal too. */
  readOperationStates?(afterOperationId: string, limit: number): Promise<{ operation: OperationStateFields; latestEvent: JournalEventRow | undefined }[]>;
}

/**
 * Why verification stopped. Reasons are short and opaque on purpose: they say what failed, never
 * the content of the data that failed.
 */
export type JournalFault =
  | "wrong_key" // the journal was written under another key (or its key id was altered)
  | "head_mac" // the head checkpoint was altered
  | "tombstone_mac" // a tombstone was altered or forged
  | "tombstone_count" // a tombstone was deleted or added
  | "missing_event" // an expected sequence number is absent (deletion, or truncation before the head)
  | "chain" // the event does not follow the previous one (insertion, reordering, splicing)
  | "mac" // the event's fields do not match its MAC (modification)
  | "body_hash" // the event's body does not match its hash (modification)
  | "missing_body" // a body was removed without a tombstone allowing it
  | "beyond_head" // events exist past the authenticated head (insertion at the end)
  | "operation_state"; // an operation's stored row does not match its latest event (the row was edited)

export type JournalVerdict =
  | { ok: true; events: number; headSeq: number; baseSeq: number; tombstones: number }
  | { ok: false; fault: JournalFault; /** The first bad event's sequence number (null when the fault is not one event's). */ seq: number | null; operationId: string | null; message: string; eventsChecked: number };

const PAGE = 1000;

/**
 * Verifies the whole journal: the head checkpoint's MAC, every tombstone's MAC and their count,
 * then every event from the compacted base to the head: contiguous sequence numbers, each event's
 * MAC over its fields and the previous event's MAC, each body against its hash, and no event after
 * the head. Stops at the first problem and names it. Detects modification, deletion, insertion,
 * reordering, truncation of the tail and a wrong key. Then, when the source can list them, every
 * live operation's row is checked against its latest event, so an edited phase, attempt count or
 * boundary is named too. It cannot detect a rollback of the whole database to an earlier, internally
 * consistent copy: that needs an anchor kept elsewhere (docs/SECURITY.md).
 */
export async function verifyJournal(source: JournalSource, sealer: JournalSealer): Promise<JournalVerdict> {
  const fail = (fault: JournalFault, seq: number | null, message: string, eventsChecked: number, operationId: string | null = null): JournalVerdict => ({
    ok: false,
    fault,
    seq,
    operationId,
    message,
    eventsChecked,
  });

  const head = await source.readJournalHead();
  if (head === undefined) {
    const any = await source.readJournalEvents(0, 1);
    return any.length === 0 ? { ok: true, events: 0, headSeq: 0, baseSeq: 0, tombstones: 0 } : fail("head_mac", null, "The journal has events but no head checkpoint.", 0);
  }
  const firstSeq = head.baseSeq + 1;
  if (!sealer.macEquals(sealer.keyId, head.keyId)) {
    return fail("wrong_key", firstSeq, "The journal was written with a different key than the one given: no event can be authenticated (is ERRAND_HOME/keys/master.key the right one?).", 0);
  }
  const { checkpointMac, ...headFields } = head;
  if (!sealer.macEquals(sealer.headMac(headFields), checkpointMac)) {
    return fail("head_mac", null, "The head checkpoint does not match its MAC: the record of where the journal ends was altered.", 0);
  }

  // Tombstones: each authenticated; their number must match the head.
  const compactedThrough = new Map<string, number>();
  let tombstoneCount = 0;
  for (let after = ""; ; ) {
    const page = await source.readTombstones(after, PAGE);
    for (const tombstone of page) {
      const { mac, ...fields } = tombstone;
      if (!sealer.macEquals(sealer.tombstoneMac(head.journalId, fields), mac)) {
        return fail("tombstone_mac", null, `The tombstone of operation ${tombstone.operationId} does not match its MAC.`, 0, tombstone.operationId);
      }
      compactedThrough.set(tombstone.operationId, tombstone.lastSeq);
      tombstoneCount += 1;
    }
    if (page.length < PAGE) break;
    after = page[page.length - 1]?.operationId ?? after;
  }
  if (tombstoneCount !== head.tombstones) {
    return fail("tombstone_count", null, `The head records ${head.tombstones} tombstones but ${tombstoneCount} are stored.`, 0);
  }

  let expected = firstSeq;
  let prev = head.baseMac;
  let checked = 0;
  for (;;) {
    const page = await source.readJournalEvents(expected - 1, PAGE);
    for (const event of page) {
      if (event.seq > head.seq) {
        return fail("beyond_head", event.seq, `Event ${event.seq} lies beyond the authenticated head (${head.seq}): it was inserted.`, checked, event.operationId);
      }
      if (event.seq !== expected) {
        return fail("missing_event", expected, `Event ${expected} is missing: the next stored event is ${event.seq}.`, checked);
      }
      const fault = checkEvent(sealer, head.journalId, event, prev, compactedThrough);
      if (fault !== null) return fail(fault.fault, event.seq, fault.message, checked, event.operationId);
      prev = event.mac;
      expected += 1;
      checked += 1;
    }
    if (page.length < PAGE) break;
  }
  if (expected - 1 !== head.seq) {
    return fail("missing_event", expected, `Event ${expected} is missing: the journal ends at ${expected - 1} but its head says ${head.seq} (the tail was cut off).`, checked);
  }
  if (!sealer.macEquals(head.mac, prev)) {
    return fail("chain", head.seq, `The last event's MAC does not match the head checkpoint.`, checked);
  }
  if (source.readOperationStates !== undefined) {
    for (let after = ""; ; ) {
      const page = await source.readOperationStates(after, PAGE);
      for (const { operation, latestEvent } of page) {
        const state = authenticateOperationState(operation, latestEvent, sealer, head.journalId);
        if (!state.ok) return fail("operation_state", null, `Operation ${operation.operationId}'s stored row cannot be trusted: ${state.reason}.`, checked, operation.operationId);
      }
      if (page.length < PAGE) break;
      after = page[page.length - 1]?.operation.operationId ?? after;
    }
  }
  return { ok: true, events: checked, headSeq: head.seq, baseSeq: head.baseSeq, tombstones: tombstoneCount };
}

function checkEvent(
  sealer: JournalSealer,
  journalId: string,
  event: JournalEventRow,
  prev: string,
  compactedThrough: ReadonlyMap<string, number>,
): { fault: JournalFault; message: string } | null {
  if (!sealer.macEquals(prev, event.prevMac)) {
    return { fault: "chain", message: `Event ${event.seq} does not follow event ${event.seq - 1}: events were inserted, removed or reordered here.` };
  }
  const { seq, operationId, type, atMs, bodyHash, prevMac, mac } = event;
  if (!sealer.macEquals(sealer.eventMac(journalId, { seq, operationId, type, atMs, bodyHash, prevMac }), mac)) {
    return { fault: "mac", message: `Event ${event.seq} does not match its MAC: it was modified.` };
  }
  if (event.body === null) {
    const through = event.operationId === null ? undefined : compactedThrough.get(event.operationId);
    if (through === undefined || through < event.seq) {
      return { fault: "missing_body", message: `Event ${event.seq} has lost its body, and no tombstone allows that.` };
    }
    return null;
  }
  if (!sealer.macEquals(sealer.bodyHash(event.body), event.bodyHash)) {
    return { fault: "body_hash", message: `Event ${event.seq}'s body does not match its hash: it was modified.` };
  }
  return null;
}
