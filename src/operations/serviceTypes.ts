import type { UnauthenticRow } from "../store/Store.js";
import type { ArtifactRead } from "./artifactKeeping.js";
import type { ErrorCode } from "../errors/errorCodes.js";
import type { Problem } from "../errors/result.js";
import type { JournalVerdict } from "../journal/verifyJournal.js";
import type { JournalSealer } from "../journal/createJournalSealer.js";
import type { KeyRotationRecord } from "../journal/verifyKeyHandovers.js";
import type { EphemeralEvidence, Receipt, ReceiptStatus } from "../receipt/receiptTypes.js";
import type { RunQueueOptions, RunQueueReport } from "../runner/runnerTypes.js";
import type { WorkerPool } from "../runner/workerPool.js";
import type { ApprovalDecision, AttemptRecord, BreakerRecord, CancelOutcome, CompactionReport, OperationPhase, StoreStatus } from "../store/Store.js";
import type { TaskDescription } from "../task/describeTask.js";
import type { Handle } from "./handle.js";
import type { Requester } from "./requester.js";

/**
 * Where an operation stands, in the words callers act on:
 * awaiting_approval (nothing runs until the owner approves it on the host or in the owner console),
 * pending (queued or running: collect again later), completed (a receipt with PASS, PARTIAL or FAIL),
 * blocked (refused or stopped before any change: safe to fix and submit anew), uncertain (a write may
 * have happened: check the site, do not resubmit blindly), cancelled, and, from inspect only,
 * compacted (finished long ago; only its tombstone remains).
 */
export type OperationStatus = "awaiting_approval" | "pending" | "completed" | "blocked" | "uncertain" | "cancelled";

export function statusOfPhase(phase: OperationPhase): OperationStatus {
  return phase === "queued" || phase === "running" ? "pending" : phase;
}

/** What the owner is asked to approve: the task in plain words, bound to its request digest. */
export interface ApprovalRequest {
  requestDigest: string;
  /** When the wait ends BLOCKED approval_expired. */
  expiresAt: string;
  /** The description as plain text, digest included (what every interface shows). */
  summary: string;
  description: TaskDescription;
}

export type ApprovalRequestResult = { ok: true; status: "awaiting_approval"; handle: Handle; approval: ApprovalRequest } | ServiceFailure;

export type DecideApprovalServiceResult = { ok: true; outcome: "approved" | "denied"; status: OperationStatus; handle: Handle } | ServiceFailure;

/** One line of the owner console's lists. */
export interface OperationListItem {
  status: OperationStatus;
  handle: Handle;
  risk: string;
  updatedAt: string;
  receipt?: Receipt;
  approval?: ApprovalRequest;
}

/** A call the service refused; `message` tells whoever must act what to do next. */
export interface ServiceFailure {
  ok: false;
  code: ErrorCode;
  message: string;
  /** Every problem found in a refused task, each with its JSON Pointer. */
  problems?: Problem[];
  /** The handle of the operation concerned, when there is one (for example on identity_mismatch). */
  handle?: Handle;
}

export interface SubmitAccepted {
  ok: true;
  status: OperationStatus;
  /** False when the operation already existed under this id and digest: nothing new was created or run. */
  created: boolean;
  /** True when an operation that errand's own environment had refused (BLOCKED before any browser opened) was queued again by this submit. */
  reopened?: boolean;
  handle: Handle;
  /** Present while the operation waits for the owner's approval. */
  approval?: ApprovalRequest;
}
export type SubmitResult = SubmitAccepted | ServiceFailure;

export interface OperationSummary {
  risk: string;
  attempts: number;
  maxAttempts: number;
  receiptStatus: ReceiptStatus | null;
  cancelRequested: boolean;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
  /** When a queued operation becomes eligible (retry delay). */
  runAfter: string | null;
  leaseOwner: string | null;
  leaseExpiresAt: string | null;
  /** The owner's standing grant (errand site allow) that let it run without a per-task approval; null when none did. */
  ranUnderGrant: string | null;
}

export interface TombstoneSummary {
  phase: string;
  receiptStatus: string | null;
  attempts: number;
  createdAt: string;
  finishedAt: string;
  compactedAt: string;
}

export type InspectResult =
  | { ok: true; status: OperationStatus; handle: Handle; operation: OperationSummary; attempts: AttemptRecord[]; approval?: ApprovalRequest }
  | { ok: true; status: "compacted"; handle: Handle; compacted: TombstoneSummary }
  | ServiceFailure;

export interface CollectOptions {
  /** Wait until the operation is terminal or timeoutMs passes. Default false. */
  wait?: boolean;
  /** Longest wait (ms), 0..3 600 000. Default 30 000. */
  timeoutMs?: number;
  /** Pause between looks while waiting (ms), 0..60 000. Default 1 000. */
  pollIntervalMs?: number;
}

export type CollectResult =
  | {
      ok: true;
      status: OperationStatus;
      handle: Handle;
      /** The durable receipt, once terminal. Absent while pending and after compaction. */
      receipt?: Receipt;
      /** Extracted values and the provider session id, held sealed for ERRAND_RESULT_TTL after the operation finished (never in the durable receipt with minimal retention). */
      ephemeral?: EphemeralEvidence;
      /** Present when the receipt was compacted: what remains of it. */
      compacted?: TombstoneSummary;
      /** Present while the operation waits for the owner's approval. */
      approval?: ApprovalRequest;
    }
  | ServiceFailure;

export interface ControlRequest {
  action: "cancel";
  /** Caller-owned UUID; a repeated id returns the first outcome and does nothing again. */
  controlActionId: string;
}

export type ControlResult = { ok: true; status: OperationStatus; outcome: CancelOutcome; repeated: boolean; handle: Handle } | ServiceFailure;

export interface StatusReport {
  store: StoreStatus & { backend: string };
  journal: { seq: number; storedBytes: number; quotaBytes: number };
  breakers: BreakerRecord[];
}

/** artifactsDeleted: artifacts of the compacted operations (and expired ones) deleted after the compaction. */
export type CompactResult = ({ ok: true; artifactsDeleted: number } & CompactionReport) | ServiceFailure;

/**
 * The operations service: one object, every interface (CLI, REST, MCP) calls it the same way. Each
 * call about operations is made as a Requester (the owner when none is given: the CLI on the host and
 * the owner console); a grant or token that may not see an operation is answered as for an unknown id.
 */
export interface OperationsService {
  submit(input: unknown, as?: Requester): Promise<SubmitResult>;
  inspect(operationId: string, as?: Requester): Promise<InspectResult>;
  collect(operationId: string, options?: CollectOptions, as?: Requester): Promise<CollectResult>;
  control(operationId: string, request: ControlRequest, as?: Requester): Promise<ControlResult>;
  /** Artifact `index` of a finished operation (its receipt's artifacts[index]), checked against the receipt's SHA-256. */
  readArtifact(operationId: string, index: number, as?: Requester): Promise<ArtifactRead>;
  /** Runs the queue with the injected executor (see runner/runQueue). */
  runQueue(options?: RunQueueOptions): Promise<RunQueueReport>;
  /**
   * Starts this process's worker pool (runner/workerPool): up to `concurrency` attempts at once
   * (default ERRAND_CONCURRENCY), woken by submits and approvals in this process, by delayed
   * retries falling due, and by a look at the store every second for work other processes queued.
   * One pool per service; close it to stop claiming.
   */
  startWorkers(options?: { concurrency?: number; onError?: (error: unknown) => void }): Promise<WorkerPool>;
  /** Tells this process's worker pool (if any) that something became eligible. */
  wake(): void;
  status(): Promise<StatusReport>;
  verifyJournal(): Promise<JournalVerdict>;
  /** Records a checkpoint of every live operation's chain (Store.writeCheckpoint); returns how many it lists. */
  checkpointJournal(): Promise<number>;
  /** Stored rows that grant authority and fail their MAC (Store.findUnauthenticRows). */
  findUnauthenticRows(): Promise<UnauthenticRow[]>;
  /**
   * The key rotations the journal records, each handover checked against the former keys given
   * (journal/verifyKeyHandovers); call it once verifyJournal found the journal intact.
   */
  keyRotations(formerKeys: readonly JournalSealer[]): Promise<KeyRotationRecord[]>;
  compactJournal(options: { olderThanMs: number }): Promise<CompactResult>;

  // ---- owner approval: only the owner's own channels (CLI on the host, owner console) call these.
  /** The approval an operation waits for, in plain words with its digest. */
  approvalRequest(operationId: string): Promise<ApprovalRequestResult>;
  /** Approve (→ queued) or deny (→ BLOCKED approval_denied), bound to the digest the owner was shown. */
  decideApproval(operationId: string, decision: ApprovalDecision): Promise<DecideApprovalServiceResult>;
  /** Ends expired waits BLOCKED approval_expired; returns how many. */
  expireApprovals(): Promise<number>;
  /** Authenticated operations by last change (newest first), awaiting approval only when asked. */
  listOperations(query: { awaitingApproval?: boolean; limit: number }, as?: Requester): Promise<OperationListItem[]>;
  /** One authenticated operation with its receipt (never its live extracted values: those stay for collect). */
  operationItem(operationId: string, as?: Requester): Promise<OperationListItem | ServiceFailure>;
}
