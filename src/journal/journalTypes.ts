/**
 * Shapes of the authenticated journal as it is stored. A store persists these verbatim; every MAC
 * is computed and checked in src/journal, never in a store.
 */

/** One stored event. `body` is canonical JSON; it is null only after compaction, under a tombstone. */
export interface JournalEventRow {
  seq: number;
  operationId: string | null;
  type: JournalEventType;
  atMs: number;
  body: string | null;
  /** Hex SHA-256 of the body text; kept when the body is compacted away so the chain still verifies. */
  bodyHash: string;
  /** MAC of the previous event (or the genesis value / the compacted prefix's last MAC). */
  prevMac: string;
  mac: string;
}

/**
 * The head checkpoint: one row naming the last event and the compacted prefix, MACed as a whole.
 * Without it, cutting events off the end would leave a valid shorter chain.
 */
export interface JournalHead {
  journalId: string;
  /** Short MAC of a constant under the journal key: tells "wrong key" apart from "tampered". */
  keyId: string;
  /** Sequence number and MAC of the last event; equal to baseSeq/baseMac when no event is stored. */
  seq: number;
  mac: string;
  /** Events 1..baseSeq were compacted away; baseMac is the MAC of event baseSeq (genesis when 0). */
  baseSeq: number;
  baseMac: string;
  /** Bytes of events, retained task documents and tombstones currently stored (quota accounting). */
  storedBytes: number;
  /** Number of operation tombstones, so deleting one is noticed. */
  tombstones: number;
  checkpointMac: string;
}

export type HeadFields = Omit<JournalHead, "checkpointMac">;

/** What remains of a compacted operation: enough to say what became of it, authenticated. */
export interface OperationTombstone {
  operationId: string;
  requestDigest: string;
  phase: string;
  receiptStatus: string | null;
  attempts: number;
  /** The operation's last revision and boundary, so its handle can still be given. */
  revision: number;
  mutationBoundary: string;
  /** Sequence number of the operation's last event; bodies of its events up to here may be absent. */
  lastSeq: number;
  createdMs: number;
  finishedMs: number;
  compactedMs: number;
  mac: string;
}

export type TombstoneFields = Omit<OperationTombstone, "mac">;

export const JOURNAL_EVENT_TYPES = [
  "operation_created",
  // The owner approved an operation that was awaiting approval (who, how, when, the digest shown).
  "operation_approved",
  "operation_claimed",
  // A refusal that was errand's own fault (no Chromium, provider unavailable, ...) was submitted again: back to the queue.
  "operation_reopened",
  "mutation_boundary_crossed",
  "cancel_requested",
  "operation_requeued",
  "operation_finished",
  "breaker_changed",
  "journal_compacted",
  // Access over HTTP (operation-less): grants, refusals and revocations, and what each caller did.
  "auth_changed",
  "request_recorded",
  // Provider activation (operation-less): a smoke verified or un-verified a provider, or it refused errand's credential.
  "provider_changed",
  // Declared secrets (operation-less): a secret was created, re-bound or deleted; name, sites and source kind only.
  "secret_changed",
] as const;
export type JournalEventType = (typeof JOURNAL_EVENT_TYPES)[number];

/** An event before it is sealed: the store adds seq, time and MACs inside its transaction. */
export interface EventDraft {
  type: JournalEventType;
  operationId: string | null;
  /** Plain JSON only (ids, digests, phases, counts, codes); never a secret value. */
  body: Record<string, unknown>;
}
