import type { OperationListOrder } from "./rows/listOrder.js";
import type { ChainHead, CheckpointEntry, JournalEventRow, JournalHead, OperationTombstone } from "../journal/journalTypes.js";
import type { ApprovalDecision, BlockedReceiptFactory, DecideApprovalResult } from "../core/approvalTypes.js";
import type { AttemptResolution } from "../core/attemptResolution.js";
import type { CancelResult } from "../core/cancelTypes.js";
import type { OperationPhase } from "../core/operationPhase.js";
import type { NewOperation, OperationRecord } from "../core/operationRecord.js";
import type { Receipt } from "../receipt/receiptTypes.js";

// The operation lifecycle's own types live in src/core; the port names them for every backend and caller.
export type { ApprovalDecision, ApprovalEndCode, BlockedReceiptFactory, DecideApprovalResult } from "../core/approvalTypes.js";
export type { AttemptResolution } from "../core/attemptResolution.js";
export type { CancelOutcome, CancelResult } from "../core/cancelTypes.js";
export type { OperationPhase, TerminalPhase } from "../core/operationPhase.js";
export { OPERATION_PHASES, TERMINAL_PHASES, isTerminalPhase } from "../core/operationPhase.js";
export type { NewOperation, OperationRecord } from "../core/operationRecord.js";
export { operationState } from "../core/operationRecord.js";

/**
 * The durable state of operations, attempts, leases, cancel requests, provider circuit breakers and
 * the authenticated journal, behind one async interface. Every method that changes an operation
 * appends its journal event in the same transaction, so state and history cannot diverge.
 *
 * Every method that acts on an operation first checks its row against the operation's latest journal
 * event (authenticateOperationState): a row edited behind errand's back is never claimed, resumed,
 * recovered, cancelled or approved. Candidates refused that way are skipped and reported through
 * takeIntegrityRefusals; cancel and approval throw OperationTamperedError.
 *
 * Backends own the clock (SQLite: the process clock, injectable for tests; PostgreSQL: now()), so
 * lease expiry is judged by one clock however many runners there are.
 *
 * The interface admits PostgreSQL: claimNext maps to `UPDATE … WHERE operation_id = (SELECT …
 * FOR UPDATE SKIP LOCKED) RETURNING …`, and every fenced write to `… WHERE lease_token = $token`.
 */
export interface Store {
  readonly backend: string;
  /** Milliseconds since the epoch on the store's clock. */
  now(): Promise<number>;
  schemaVersion(): Promise<number>;
  close(): Promise<void>;

  // ---- submit, inspect ----------------------------------------------------------------------
  /** Creates the operation, or returns what already holds its id; never overwrites anything. */
  createOperation(input: NewOperation, quotaBytes: number): Promise<CreateOperationResult>;
  /**
   * The operation with its latest event and receipt event, read in one consistent snapshot. With
   * `onlySubmittedBy`, undefined unless the live row names that submitter (tombstones name none), and
   * then after reading the row alone, so another's operation costs what an unknown id costs.
   */
  readOperation(operationId: string, onlySubmittedBy?: string): Promise<OperationView | undefined>;
  /**
   * Every stored event of the operation, oldest first. The attempt history is derived from these
   * (authenticated) events, never from a table an attacker could rewrite.
   */
  readOperationEvents(operationId: string): Promise<JournalEventRow[]>;
  /** Live operations ordered by id, each with its latest event, so `journal verify` can check every row. */
  readOperationStates(afterOperationId: string, limit: number): Promise<OperationStateRow[]>;

  // ---- runner --------------------------------------------------------------------------------
  /** Atomically moves the next eligible queued operation to running with a fresh lease token. */
  claimNext(runnerId: string, leaseMs: number, onlyOperationId?: string): Promise<ClaimedOperation | undefined>;
  /** When the earliest queued operation is (or was) eligible, on the store's clock; null when nothing is queued. A read, for idle workers. */
  nextQueuedMs(): Promise<number | null>;
  /**
   * Extends the lease to now + leaseMs on the store's clock if the token still holds it and it has
   * not expired; reports a pending cancel request. An expired lease is never extended, even before
   * anyone recovered it: once expired it may be recovered at any moment, so it is over.
   */
  renewLease(lease: LeaseRef, leaseMs: number): Promise<LeaseCheck>;
  /** Reads (without writing) whether the token still holds an unexpired lease and whether cancel was asked. */
  checkLease(lease: LeaseRef): Promise<LeaseCheck>;
  /**
   * Records durably that the write is about to cross its mutation boundary. Refused when the lease
   * is lost or expired on the store's clock, or a cancel request came first: then nothing may be
   * dispatched.
   */
  crossMutationBoundary(lease: LeaseRef): Promise<BoundaryResult>;
  /**
   * Ends the attempt the token holds (terminal or back to the queue) with what `resolve` returns for
   * the operation as it stands inside the transaction (a cancel request that landed a moment ago is
   * seen). `applied` is undefined when the lease was lost and nothing changed. With `claimNext`, the
   * next eligible operation is claimed in the same transaction (one commit per operation instead of
   * two; graphile-worker and BullMQ fuse "finish + fetch" the same way).
   */
  finishAttempt(lease: LeaseRef, resolve: (operation: OperationRecord) => AttemptResolution, claimNext?: ClaimRequest): Promise<FinishResult>;
  /**
   * Resolves every running operation whose lease expired, with the resolution `decide` returns for
   * it (evaluated inside the transaction, so the state it sees is the state that is changed).
   */
  recoverExpiredLeases(decide: (expired: ExpiredLease) => AttemptResolution, limit: number): Promise<RecoveredLease[]>;
  /**
   * Operations this store refused to act on since the last call, because their row does not match
   * their latest journal event (each reported once per call, however often it was met).
   */
  takeIntegrityRefusals(): IntegrityRefusal[];

  /**
   * blocked → queued, when the same request is submitted again after a refusal that was errand's own
   * fault (the caller judged the authenticated receipt at expectedRevision). The operation gets
   * extraAttempts more attempts; undefined when it is no longer blocked at that revision.
   */
  reopenOperation(operationId: string, expectedRevision: number, extraAttempts: number, reason: string): Promise<OperationRecord | undefined>;

  // ---- results held for collect ---------------------------------------------------------------
  /** Keeps an operation's sealed result until expiresMs, replacing an earlier attempt's. */
  holdResult(held: HeldResult): Promise<void>;
  /** The held result, unless it expired (on the store's clock). */
  readHeldResult(operationId: string): Promise<HeldResult | undefined>;
  /** Deletes expired results; returns how many. */
  dropExpiredResults(): Promise<number>;

  // ---- control -------------------------------------------------------------------------------
  /** Applies a cancel exactly once per controlActionId (see CancelOutcome). */
  cancelOperation(
    operationId: string,
    controlActionId: string,
    cancelledReceipt: (operation: OperationRecord, taskJson: string) => Receipt,
  ): Promise<CancelResult>;

  // ---- owner approval ------------------------------------------------------------------------
  /**
   * Applies the owner's decision on an operation awaiting approval, checked inside the transaction:
   * it must still be awaiting, its request digest must be the one the owner was shown, and its
   * approval must not have expired (an expired one is ended BLOCKED approval_expired instead).
   * Approve → queued (the runner may claim it from now on); deny → BLOCKED approval_denied.
   */
  decideApproval(operationId: string, decision: ApprovalDecision, blockedReceipt: BlockedReceiptFactory): Promise<DecideApprovalResult>;
  /** Ends every operation whose approval expired before now BLOCKED approval_expired; returns their ids. */
  expireApprovals(blockedReceipt: BlockedReceiptFactory, limit: number): Promise<string[]>;
  /** Operations by last change, newest first; only one phase, and only one submitter's, when given. */
  listOperations(query: { phase?: OperationPhase; submittedBy?: string; limit: number; order?: OperationListOrder }): Promise<OperationRecord[]>;
  /** The operation with its stored task document (what an approval summary is made from). */
  readOperationTask(operationId: string): Promise<{ operation: OperationRecord; taskJson: string } | undefined>;

  // ---- provider circuit breakers ---------------------------------------------------------------
  readBreaker(provider: string): Promise<BreakerRecord>;
  listBreakers(): Promise<BreakerRecord[]>;
  /** Compare-and-set on the breaker's revision; journals the change. False when someone else moved it. */
  writeBreaker(next: BreakerRecord, expectedRevision: number): Promise<boolean>;

  // ---- journal -------------------------------------------------------------------------------
  readJournalHead(): Promise<JournalHead | undefined>;
  /** Every stored event by stored seq, whatever its chain. */
  readJournalEvents(afterSeq: number, limit: number): Promise<JournalEventRow[]>;
  /** The journal's own chain (operation-less events) by chainSeq. */
  readJournalChain(afterChainSeq: number, limit: number): Promise<JournalEventRow[]>;
  /** How many stored events belong to some operation (verify compares it with the live chains). */
  countOperationEvents(): Promise<number>;
  readTombstones(afterOperationId: string, limit: number): Promise<OperationTombstone[]>;
  /** The latest checkpoint's list, by operation id. */
  readCheckpoint(afterOperationId: string, limit: number): Promise<CheckpointEntry[]>;
  /**
   * Records a checkpoint: every live operation's chain head as its row names it now, the list stored
   * and its digest and count signed into the head (journal/checkpointDigest). Returns how many it lists.
   */
  writeCheckpoint(): Promise<number>;
  /**
   * Every stored row that grants authority (owner password, tokens, ... : rows/authenticRows) and
   * fails its MAC under this store's key, named by table and id (never secret material).
   */
  findUnauthenticRows(): Promise<UnauthenticRow[]>;
  /** Compacts terminal operations that finished before cutoffMs into tombstones (see CompactionReport). */
  compact(cutoffMs: number): Promise<CompactionReport>;
  /**
   * Runs `read` on the journal as it stood at one instant: every read made through the source it is
   * given sees the same snapshot, while other writers (workers, submits, other processes) go on. Paged
   * reads of a live journal taken one by one would show an event appended between two pages as an
   * insertion, so verification reads through this. The snapshot ends when `read` settles.
   */
  readJournalSnapshot<T>(read: (source: JournalSnapshot) => Promise<T>): Promise<T>;

  status(): Promise<StoreStatus>;
}

/** The journal reads of a Store, all from one snapshot when given by readJournalSnapshot. */
export type JournalSnapshot = Pick<
  Store,
  | "readJournalHead"
  | "readJournalEvents"
  | "readJournalChain"
  | "countOperationEvents"
  | "readTombstones"
  | "readCheckpoint"
  | "readOperationStates"
  | "readOperationEvents"
>;

/** An operation the store would not act on: its row does not match its journal. */
export interface IntegrityRefusal {
  operationId: string;
  /** What did not match, without any of the data (e.g. "its stored phase differs from its latest journal event"). */
  reason: string;
}

export interface OperationStateRow {
  operation: OperationRecord;
  latestEvent: JournalEventRow | undefined;
  /** The end of the operation's chain as its row names it. */
  chainHead: ChainHead;
}

export type CreateOperationResult =
  | { kind: "created"; operation: OperationRecord }
  | { kind: "existing"; operation: OperationRecord }
  | { kind: "compacted"; tombstone: OperationTombstone }
  | { kind: "quota_exceeded"; storedBytes: number; quotaBytes: number };

export type OperationView =
  | { kind: "live"; operation: OperationRecord; latestEvent: JournalEventRow | undefined; receiptEvent: JournalEventRow | undefined }
  | { kind: "compacted"; tombstone: OperationTombstone };

export interface AttemptRecord {
  operationId: string;
  attempt: number;
  runnerId: string;
  startedMs: number;
  endedMs: number | null;
  /** Receipt status of the attempt, "lost" when its lease ran out without renewal, null while it runs. */
  outcome: string | null;
  errorCode: string | null;
  provider: string | null;
}

/** An attempt's extracted values and provider session id, sealed by the operations service (the store never sees them in the clear). */
export interface HeldResult {
  operationId: string;
  /** The attempt that produced it: served only while it is the operation's last attempt. */
  attempt: number;
  sealed: string;
  expiresMs: number;
}

export interface LeaseRef {
  operationId: string;
  token: string;
}

export interface ClaimedOperation {
  operation: OperationRecord;
  taskJson: string;
  lease: LeaseRef;
  attempt: number;
}

export interface ClaimRequest {
  runnerId: string;
  leaseMs: number;
  /** Claim only this operation (errand run drives its own operation and nothing else). */
  onlyOperationId?: string;
}

export interface FinishResult {
  applied: AttemptResolution | undefined;
  /** The operation claimed in the same transaction, when asked for and one was eligible. */
  next: ClaimedOperation | undefined;
}

export interface LeaseCheck {
  held: boolean;
  cancelRequested: boolean;
  /** Set when the token still names the running attempt but its lease ran out on the store's clock (nobody recovered it yet). */
  expired?: true;
}

export type BoundaryResult = "crossed" | "lease_lost" | "lease_expired" | "cancel_requested";

export interface ExpiredLease {
  operation: OperationRecord;
  taskJson: string;
}

export interface RecoveredLease {
  operationId: string;
  resolution: AttemptResolution["kind"];
  phase: OperationPhase;
}

export const BREAKER_STATES = ["CLOSED", "OPEN", "HALF_OPEN"] as const;
export type BreakerState = (typeof BREAKER_STATES)[number];

export interface BreakerRecord {
  provider: string;
  state: BreakerState;
  /** Consecutive provider-class failures while CLOSED. */
  failures: number;
  /** OPEN: refuse work until this time; then one probe may start. */
  openUntilMs: number | null;
  /** HALF_OPEN: the probe in flight and when it is considered abandoned. */
  probeToken: string | null;
  probeExpiresMs: number | null;
  /** 0 for a provider never recorded. */
  revision: number;
  updatedMs: number;
}

export interface CompactionReport {
  /** Operations turned into tombstones. */
  operations: number;
  /** Events whose bodies were dropped. */
  eventBodies: number;
  /** Events removed entirely: the compacted operations' chains and the folded prefix of the journal's own chain. */
  eventsRemoved: number;
  bytesFreed: number;
  storedBytes: number;
}

export interface StoreStatus {
  phases: Record<OperationPhase, number>;
  /** Running operations whose lease has expired (they are recovered by the next runner). */
  expiredLeases: number;
  /** Queued operations that are not yet eligible (retry delay), and when the first becomes eligible. */
  delayed: number;
  nextEligibleMs: number | null;
  tombstones: number;
  /** The highest stored event seq (0 when none): it grows with every event, whichever chain it joins. */
  journalSeq: number;
  /** Bytes counted against the journal quota: the head's own count plus every live operation's. */
  storedBytes: number;
  schemaVersion: number;
}

/** A stored row that grants authority and fails its MAC, as doctor and journal verify name it (never its secret material). */
export interface UnauthenticRow {
  table: string;
  id: string;
}
