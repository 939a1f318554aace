import { createHash, createHmac, createSecretKey, timingSafeEqual } from "node:crypto";
import { canonicalJson } from "../task/canonicalJson.js";
import type { HeadFields, JournalEventRow, TombstoneFields } from "./journalTypes.js";

export const MIN_JOURNAL_KEY_BYTES = 32;

const DOMAIN = {
  // Format 1 (one chain of every event): kept to check and convert journals written before format 2.
  event: "errand/journal/event/v1",
  genesis: "errand/journal/genesis/v1",
  head: "errand/journal/head/v1",
  // Format 2: one chain per operation plus the journal's own chain, and a head that carries the checkpoint.
  chainEvent: "errand/journal/event/v2",
  chainGenesis: "errand/journal/genesis/v2",
  chainHead: "errand/journal/head/v2",
  tombstone: "errand/journal/tombstone/v1",
  keyId: "errand/journal/key-id/v1",
  // The outgoing key's word that it handed this journal to the next key (errand key rotate).
  keyHandover: "errand/journal/key-handover/v1",
  // Rows that grant authority (owner password, tokens, clients, secrets, ...), under their own subkey.
  rowKey: "errand/row/key/v1",
  row: "errand/row/v1",
} as const;

const HEX = /^(?:[0-9a-f]{2})+$/;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** The fields of an event that its MAC covers; the body enters through its hash. The stored seq is not among them. */
export type EventMacFields = Omit<JournalEventRow, "body" | "mac" | "seq">;

/** The fields a format-1 event's MAC covered: its place in the single chain was its stored seq. */
export type LegacyEventMacFields = Omit<JournalEventRow, "body" | "mac" | "chainSeq">;

/**
 * Computes and checks every MAC of the journal with one key. Inputs are domain-separated
 * (`domain \0 canonical JSON`) so a MAC made for one purpose never verifies for another, and
 * comparisons are constant-time and fail closed on anything malformed.
 */
export interface JournalSealer {
  readonly keyId: string;
  /** The value a chain starts from: the journal's own chain (operationId null) or one operation's. */
  chainGenesis(journalId: string, operationId: string | null): string;
  bodyHash(body: string): string;
  eventMac(journalId: string, fields: EventMacFields): string;
  headMac(head: HeadFields): string;
  /** Format 1, for checking a journal before it is converted. */
  genesis(journalId: string): string;
  legacyEventMac(journalId: string, fields: LegacyEventMacFields): string;
  legacyHeadMac(head: HeadFields): string;
  tombstoneMac(journalId: string, tombstone: TombstoneFields): string;
  /**
   * The MAC of one stored row that grants authority: its table, its primary key and the columns that
   * decide what it grants, as canonical JSON (RFC 8785), under a subkey of this key. Naming the table
   * and the key means a MAC copied to another row, or a row moved to another id or table, fails.
   */
  rowMac(table: string, key: Readonly<Record<string, RowValue>>, columns: Readonly<Record<string, RowValue>>): string;
  /**
   * Under the outgoing key, at a key rotation: this journal, as its head was last signed under this
   * key (`headMac`), was handed at `atMs` to the key whose id is `toKeyId`. Only the holder of this
   * key can make it; `errand journal verify` checks it while the former key is kept.
   */
  keyHandoverMac(journalId: string, handover: KeyHandover): string;
  /** Constant-time equality of two hex strings (MACs, key ids); false for anything malformed. */
  macEquals(expected: string, actual: unknown): boolean;
}

/** What a key handover MAC binds (journalTypes "key_rotated"). */
export interface KeyHandover {
  fromKeyId: string;
  toKeyId: string;
  atMs: number;
  /** The MAC of the journal head as the outgoing key last signed it. */
  headMac: string;
}

/** A stored column value a row MAC covers. */
export type RowValue = string | number | null;

export function createJournalSealer(key: Uint8Array): JournalSealer {
  if (key.length < MIN_JOURNAL_KEY_BYTES) throw new RangeError(`journal key must be at least ${MIN_JOURNAL_KEY_BYTES} bytes`);
  // Imported once as a key object: every event, head and check on the hot path MACs with it.
  const secret = createSecretKey(Buffer.from(key));
  const mac = (domain: string, text: string): string => createHmac("sha256", secret).update(`${domain}\u0000${text}`, "utf8").digest("hex");
  const keyId = mac(DOMAIN.keyId, "").slice(0, 16);
  const rowSecret = createSecretKey(createHmac("sha256", secret).update(DOMAIN.rowKey, "utf8").digest());
  return {
    keyId,
    chainGenesis: (journalId, operationId) => mac(DOMAIN.chainGenesis, flatCanonicalJson({ journal: journalId, operation: operationId })),
    bodyHash: (body) => createHash("sha256").update(body, "utf8").digest("hex"),
    eventMac: (journalId, f) =>
      mac(
        DOMAIN.chainEvent,
        flatCanonicalJson({
          journal: journalId,
          operation: f.operationId,
          chainSeq: f.chainSeq,
          type: f.type,
          at: f.atMs,
          bodyHash: f.bodyHash,
          prev: f.prevMac,
        }),
      ),
    headMac: (h) =>
      mac(
        DOMAIN.chainHead,
        flatCanonicalJson({
          journal: h.journalId,
          keyId: h.keyId,
          format: h.format,
          seq: h.seq,
          mac: h.mac,
          baseSeq: h.baseSeq,
          baseMac: h.baseMac,
          storedBytes: h.storedBytes,
          tombstones: h.tombstones,
          checkpointOperations: h.checkpointOperations,
          checkpointDigest: h.checkpointDigest,
        }),
      ),
    genesis: (journalId) => mac(DOMAIN.genesis, canonicalJson({ journal: journalId })),
    legacyEventMac: (journalId, f) =>
      mac(
        DOMAIN.event,
        flatCanonicalJson({ journal: journalId, seq: f.seq, type: f.type, operation: f.operationId, at: f.atMs, bodyHash: f.bodyHash, prev: f.prevMac }),
      ),
    legacyHeadMac: (h) =>
      mac(
        DOMAIN.head,
        flatCanonicalJson({
          journal: h.journalId,
          keyId: h.keyId,
          seq: h.seq,
          mac: h.mac,
          baseSeq: h.baseSeq,
          baseMac: h.baseMac,
          storedBytes: h.storedBytes,
          tombstones: h.tombstones,
        }),
      ),
    tombstoneMac: (journalId, t) =>
      mac(
        DOMAIN.tombstone,
        canonicalJson({
          journal: journalId,
          operation: t.operationId,
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
        }),
      ),
    rowMac: (table, rowKey, columns) =>
      createHmac("sha256", rowSecret)
        .update(`${DOMAIN.row}\u0000${canonicalJson({ table, key: rowKey, columns })}`, "utf8")
        .digest("hex"),
    keyHandoverMac: (journalId, h) =>
      mac(DOMAIN.keyHandover, flatCanonicalJson({ journal: journalId, from: h.fromKeyId, to: h.toKeyId, at: h.atMs, head: h.headMac })),
    macEquals: (expected, actual) => constantTimeHexEqual(expected, actual),
  };
}

/**
 * RFC 8785 canonical JSON of a flat record of printable-ASCII strings, safe integers and nulls: keys
 * sorted, values serialized as JSON.stringify does (which is what JCS prescribes for these types).
 * The MAC inputs on the hot path (ids, hex digests, type names, counts) are exactly such records;
 * anything else is refused rather than serialized differently.
 */
export function flatCanonicalJson(record: Record<string, string | number | null>): string {
  const members = Object.keys(record)
    .sort()
    .map((key) => {
      const value = record[key] ?? null;
      if (typeof value === "number" && !Number.isSafeInteger(value)) throw new TypeError(`flatCanonicalJson: ${key} is not a safe integer`);
      if (typeof value === "string" && !PRINTABLE_ASCII.test(value)) throw new TypeError(`flatCanonicalJson: ${key} is not printable ASCII`);
      if (!PRINTABLE_ASCII.test(key)) throw new TypeError("flatCanonicalJson: a key is not printable ASCII");
      return `${JSON.stringify(key)}:${JSON.stringify(value)}`;
    });
  return `{${members.join(",")}}`;
}

function constantTimeHexEqual(expected: string, actual: unknown): boolean {
  if (typeof actual !== "string" || actual.length !== expected.length || !HEX.test(actual) || !HEX.test(expected)) return false;
  return timingSafeEqual(Buffer.from(expected, "hex"), Buffer.from(actual, "hex"));
}
