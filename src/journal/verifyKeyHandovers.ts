import type { JournalSealer } from "./createJournalSealer.js";
import type { JournalSource } from "./verifyJournal.js";

/**
 * One key rotation as the journal records it, and what could be checked of it:
 * - "verified": the former key is kept and its handover MAC holds: the holder of the old key handed
 *   this journal, as the old key last signed it, to the key named;
 * - "key_not_kept": the former key is no longer kept (errand key retire), so the handover cannot be
 *   checked; the event itself is authenticated by the key in force like every other;
 * - "forged": the former key is kept and the handover MAC does not hold: the event was made by
 *   someone holding a later key but not the old one.
 */
export interface KeyRotationRecord {
  atMs: number;
  fromKeyId: string;
  toKeyId: string;
  handover: "verified" | "key_not_kept" | "forged";
}

const PAGE = 1000;

/**
 * The rotations recorded in the journal's own chain (its events still stored, from its folded base),
 * with each handover checked against the former keys given. Call it after verifyJournal found the
 * journal intact under the key in force: it reads the events' bodies as authentic.
 */
export async function verifyKeyHandovers(source: JournalSource, formerKeys: readonly JournalSealer[]): Promise<KeyRotationRecord[]> {
  const head = await source.readJournalHead();
  if (head === undefined) return [];
  const records: KeyRotationRecord[] = [];
  for (let after = head.baseSeq; ;) {
    const page = await source.readJournalChain(after, PAGE);
    for (const event of page) {
      if (event.type !== "key_rotated" || event.body === null) continue;
      const body = JSON.parse(event.body) as { fromKeyId?: unknown; toKeyId?: unknown; oldHeadMac?: unknown; handover?: unknown };
      const fromKeyId = String(body.fromKeyId);
      const toKeyId = String(body.toKeyId);
      const former = formerKeys.find((sealer) => sealer.macEquals(sealer.keyId, fromKeyId));
      let handover: KeyRotationRecord["handover"] = "key_not_kept";
      if (former !== undefined) {
        const expected = former.keyHandoverMac(head.journalId, { fromKeyId, toKeyId, atMs: event.atMs, headMac: String(body.oldHeadMac) });
        handover = former.macEquals(expected, body.handover) ? "verified" : "forged";
      }
      records.push({ atMs: event.atMs, fromKeyId, toKeyId, handover });
    }
    if (page.length < PAGE) break;
    after = page[page.length - 1]?.chainSeq ?? after;
  }
  return records;
}
