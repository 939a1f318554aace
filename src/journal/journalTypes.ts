/**
 * Shapes of the authenticated journal as it is stored. A store persists these verbatim; every MAC
 * is computed and checked in src/journal, never in a store.
 */

/**
 * One stored event. `body` is canonical JSON; it is null only in a journal written before per-operation
 * chains, after compaction, under a tombstone.
 *
 * Every event belongs to one chain: its operation's (operationId set) or the journal's own chain of
 * operation-less events (operationId null). `chainSeq` is its place in that chain (1, 2, 3 …) and
 * `prevMac` the MAC of the event before it there (or the chain's genesis value). `seq` is only where the
 * store keeps it: unique and increasing in commit order, with gaps, and not covered by the MAC (so no
 * writer has to wait for another to learn its number).
 */
export interface JournalEventRow {
  seq: number;
  chainSeq: number;
  operationId: string | null;
  type: JournalEventType;
  atMs: number;
  body: string | null;
  /** Hex SHA-256 of the body text; kept when the body is compacted away so the chain still verifies. */
  bodyHash: string;
  /** MAC of the previous event of the same chain (or the chain's genesis value / its folded prefix's last MAC). */
  prevMac: string;
  mac: string;
}

/**
 * The journal head: one row, MACed as a whole. It names the end of the journal's own chain (the
 * operation-less events), its folded prefix, the tombstone count and the latest checkpoint of the
 * operation chains (see docs/SECURITY.md, "Per-operation chains and checkpoints"). Operation events do
 * not touch it, so runners never wait for each other here.
 *
 * Format 1 is the single chain of every event that errand wrote before per-operation chains: `seq`/`mac`
 * named the last event of all, and the checkpoint fields did not exist. A store converts it once, with
 * the key, when it opens the database (journal/upgradeLegacyJournal.ts).
 */
export interface JournalHead {
  journalId: string;
  /** Short MAC of a constant under the journal key: tells "wrong key" apart from "tampered". */
  keyId: string;
  /** 2 (per-operation chains); 1 for a journal not converted yet. */
  format: number;
  /** Place and MAC of the last event of the journal's own chain; equal to baseSeq/baseMac when none is stored. */
  seq: number;
  mac: string;
  /** That chain's events 1..baseSeq were folded away; baseMac is the MAC of event baseSeq (the chain's genesis when 0). */
  baseSeq: number;
  baseMac: string;
  /**
   * Bytes counted against the quota outside the operation rows: the journal's own events and the
   * tombstones. Each live operation row counts its task document and events itself (stored_bytes).
   */
  storedBytes: number;
  /** Number of operation tombstones, so deleting one is noticed. */
  tombstones: number;
  /** How many operations the latest checkpoint lists, and the SHA-256 of that list (journal/checkpointDigest.ts). */
  checkpointOperations: number;
  checkpointDigest: string;
  checkpointMac: string;
}

/** Where one chain ends: its last event's place and MAC (0 and the genesis value for an empty chain). */
export interface ChainHead {
  seq: number;
  mac: string;
}

/** One operation as the checkpoint lists it: the head its chain had when the checkpoint was written. */
export interface CheckpointEntry {
  operationId: string;
  chainSeq: number;
  chainMac: string;
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
  /** Stored sequence number of the operation's last event (its events are deleted with the row). */
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
  // Sites (operation-less): a site was defined, redefined or removed; name, origins and login settings only, never a session.
  "site_changed",
  // The master key was rotated (operation-less): the old and new key ids, what was re-sealed and re-signed, and the old key's handover MAC.
  "key_rotated",
] as const;
export type JournalEventType = (typeof JOURNAL_EVENT_TYPES)[number];

/** An event before it is sealed: the store adds seq, time and MACs inside its transaction. */
export interface EventDraft {
  type: JournalEventType;
  operationId: string | null;
  /** Plain JSON only (ids, digests, phases, counts, codes); never a secret value. */
  body: Record<string, unknown>;
}
