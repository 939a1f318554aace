import type { JournalSealer } from "./createJournalSealer.js";
import type { JournalEventRow, JournalHead, OperationTombstone } from "./journalTypes.js";
import type { JournalFault, JournalVerdict } from "./verifyJournal.js";

/**
 * Verifies a format-1 journal (one chain of every event, as errand wrote it before per-operation
 * chains) held in memory: the head's MAC, every tombstone and their count, then every event from the
 * folded base to the head: contiguous stored sequence numbers, each MAC over the previous one's, each
 * body against its hash, nothing past the head. Used to refuse converting a journal that does not
 * verify (upgradeLegacyJournal) and by `journal verify` on a journal not converted yet.
 */
export function verifyLegacyJournal(
  head: JournalHead,
  events: readonly JournalEventRow[],
  tombstones: readonly OperationTombstone[],
  sealer: JournalSealer,
): JournalVerdict {
  const fail = (fault: JournalFault, seq: number | null, message: string, eventsChecked: number, operationId: string | null = null): JournalVerdict => ({
    ok: false,
    fault,
    seq,
    operationId,
    message,
    eventsChecked,
  });
  if (!sealer.macEquals(sealer.keyId, head.keyId)) {
    return fail(
      "wrong_key",
      null,
      "The journal was written with a different key than the one given: no event can be authenticated (is ERRAND_HOME/keys/master.key the right one?).",
      0,
    );
  }
  if (!sealer.macEquals(sealer.legacyHeadMac(head), head.checkpointMac)) {
    return fail("head_mac", null, "The head checkpoint does not match its MAC: the record of where the journal ends was altered.", 0);
  }
  const compactedThrough = new Map<string, number>();
  for (const tombstone of tombstones) {
    const { mac, ...fields } = tombstone;
    if (!sealer.macEquals(sealer.tombstoneMac(head.journalId, fields), mac)) {
      return fail("tombstone_mac", null, `The tombstone of operation ${tombstone.operationId} does not match its MAC.`, 0, tombstone.operationId);
    }
    compactedThrough.set(tombstone.operationId, tombstone.lastSeq);
  }
  if (tombstones.length !== head.tombstones)
    return fail("tombstone_count", null, `The head records ${head.tombstones} tombstones but ${tombstones.length} are stored.`, 0);

  let expected = head.baseSeq + 1;
  let prev = head.baseMac;
  let checked = 0;
  for (const event of events) {
    if (event.seq > head.seq)
      return fail(
        "beyond_head",
        event.seq,
        `Event ${event.seq} lies beyond the authenticated head (${head.seq}): it was inserted.`,
        checked,
        event.operationId,
      );
    if (event.seq !== expected) return fail("missing_event", expected, `Event ${expected} is missing: the next stored event is ${event.seq}.`, checked);
    if (!sealer.macEquals(prev, event.prevMac))
      return fail(
        "chain",
        event.seq,
        `Event ${event.seq} does not follow event ${event.seq - 1}: events were inserted, removed or reordered here.`,
        checked,
        event.operationId,
      );
    const { seq, operationId, type, atMs, bodyHash, prevMac } = event;
    if (!sealer.macEquals(sealer.legacyEventMac(head.journalId, { seq, operationId, type, atMs, bodyHash, prevMac }), event.mac)) {
      return fail("mac", event.seq, `Event ${event.seq} does not match its MAC: it was modified.`, checked, event.operationId);
    }
    if (event.body === null) {
      const through = event.operationId === null ? undefined : compactedThrough.get(event.operationId);
      if (through === undefined || through < event.seq)
        return fail("missing_body", event.seq, `Event ${event.seq} has lost its body, and no tombstone allows that.`, checked, event.operationId);
    } else if (!sealer.macEquals(sealer.bodyHash(event.body), event.bodyHash)) {
      return fail("body_hash", event.seq, `Event ${event.seq}'s body does not match its hash: it was modified.`, checked, event.operationId);
    }
    prev = event.mac;
    expected += 1;
    checked += 1;
  }
  if (expected - 1 !== head.seq)
    return fail(
      "missing_event",
      expected,
      `Event ${expected} is missing: the journal ends at ${expected - 1} but its head says ${head.seq} (the tail was cut off).`,
      checked,
    );
  if (!sealer.macEquals(head.mac, prev)) return fail("chain", head.seq, "The last event's MAC does not match the head checkpoint.", checked);
  return { ok: true, events: checked, headSeq: head.seq, baseSeq: head.baseSeq, tombstones: tombstones.length, operations: 0, checkpointed: 0 };
}
