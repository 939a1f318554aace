import type {
  ChainHead,
  CheckpointEntry,
  JournalEventRow,
  JournalEventType,
  JournalHead,
  OperationTombstone,
  TombstoneFields,
} from "../../journal/journalTypes.js";
import type { MutationBoundary, ReceiptStatus } from "../../receipt/receiptTypes.js";
import type { Risk } from "../../task/taskTypes.js";
import type { OperationStateFields } from "../../journal/operationEvent.js";
import type { LiveOperation } from "../../core/liveOperation.js";
import type { BreakerRecord, BreakerState, OperationPhase, OperationRecord } from "../Store.js";
import { operationState } from "../Store.js";

/**
 * Row shapes of errand's tables as both SQL backends return them (SQLite directly; PostgreSQL with
 * BIGINT parsed to numbers), and their mapping to the Store's records. One mapping for both stores.
 */
export interface OperationRow {
  operation_id: string;
  request_digest: string;
  risk: string;
  task_json: string;
  phase: string;
  revision: number;
  attempts: number;
  max_attempts: number;
  mutation_boundary: string;
  run_after_ms: number;
  lease_token: string | null;
  lease_owner: string | null;
  lease_expires_ms: number | null;
  cancel_requested_ms: number | null;
  receipt_status: string | null;
  receipt_seq: number | null;
  created_ms: number;
  updated_ms: number;
  finished_ms: number | null;
  approval_expires_ms: number | null;
  /** The end of the operation's journal chain (place and MAC), advanced with every event. */
  chain_seq: number;
  chain_mac: string;
  /** Bytes this operation counts against the journal quota: its task document and its events. */
  stored_bytes: number;
  /** Who submitted it; written once, with the operation_created event that states it. */
  submitted_by: string;
}

export function toOperation(row: OperationRow): OperationRecord {
  return {
    operationId: row.operation_id,
    requestDigest: row.request_digest,
    risk: row.risk as Risk,
    phase: row.phase as OperationPhase,
    revision: row.revision,
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    mutationBoundary: row.mutation_boundary as MutationBoundary,
    runAfterMs: row.run_after_ms,
    createdMs: row.created_ms,
    updatedMs: row.updated_ms,
    finishedMs: row.finished_ms,
    cancelRequested: row.cancel_requested_ms !== null,
    receiptStatus: row.receipt_status as ReceiptStatus | null,
    leaseOwner: row.lease_owner,
    leaseExpiresMs: row.lease_expires_ms,
    approvalExpiresMs: row.approval_expires_ms,
    submittedBy: row.submitted_by,
  };
}

/** A row read for a decision in src/core: its record and task document, with the row itself to apply the decision to. */
export function liveOperation(row: OperationRow): LiveOperation<OperationRow> {
  return { row, operation: toOperation(row), taskJson: row.task_json };
}

/**
 * The row as it is after a transition: every field the record carries, the lease token kept while
 * the operation runs (a claim passes the new one) and dropped otherwise, the time of a cancel request
 * kept once recorded. Row-only columns (task_json, receipt_seq) are untouched here.
 */
export function rowAfter(row: OperationRow, next: OperationRecord, leaseToken?: string): OperationRow {
  return {
    ...row,
    phase: next.phase,
    revision: next.revision,
    attempts: next.attempts,
    mutation_boundary: next.mutationBoundary,
    run_after_ms: next.runAfterMs,
    lease_token: next.phase === "running" ? (leaseToken ?? row.lease_token) : null,
    lease_owner: next.leaseOwner,
    lease_expires_ms: next.leaseExpiresMs,
    cancel_requested_ms: next.cancelRequested ? (row.cancel_requested_ms ?? next.updatedMs) : null,
    receipt_status: next.receiptStatus,
    updated_ms: next.updatedMs,
    finished_ms: next.finishedMs,
    approval_expires_ms: next.approvalExpiresMs,
  };
}

/** The row of an operation just created by operationTransitions.create (no lease, no receipt yet), its chain at `chain`. */
export function newOperationRow(next: OperationRecord, taskJson: string, chain: ChainHead, storedBytes: number): OperationRow {
  return {
    operation_id: next.operationId,
    request_digest: next.requestDigest,
    risk: next.risk,
    task_json: taskJson,
    phase: next.phase,
    revision: next.revision,
    attempts: next.attempts,
    max_attempts: next.maxAttempts,
    mutation_boundary: next.mutationBoundary,
    run_after_ms: next.runAfterMs,
    lease_token: null,
    lease_owner: null,
    lease_expires_ms: null,
    cancel_requested_ms: null,
    receipt_status: null,
    receipt_seq: null,
    created_ms: next.createdMs,
    updated_ms: next.updatedMs,
    finished_ms: null,
    approval_expires_ms: next.approvalExpiresMs,
    chain_seq: chain.seq,
    chain_mac: chain.mac,
    stored_bytes: storedBytes,
    submitted_by: next.submittedBy,
  };
}

/** The chain head a row names. */
export function chainHeadOf(row: OperationRow): ChainHead {
  return { seq: row.chain_seq, mac: row.chain_mac };
}

/** The state fields an operation event repeats, taken from the row as it is after the change. */
export function stateOf(row: OperationRow): OperationStateFields {
  return operationState(toOperation(row));
}

export interface EventRow {
  seq: number;
  chain_seq: number;
  operation_id: string | null;
  type: string;
  at_ms: number;
  body: string | null;
  body_hash: string;
  prev_mac: string;
  mac: string;
}

export function toEvent(row: EventRow): JournalEventRow {
  return {
    seq: row.seq,
    chainSeq: row.chain_seq,
    operationId: row.operation_id,
    type: row.type as JournalEventType,
    atMs: row.at_ms,
    body: row.body,
    bodyHash: row.body_hash,
    prevMac: row.prev_mac,
    mac: row.mac,
  };
}

export interface HeadRow {
  journal_id: string;
  key_id: string;
  format: number;
  seq: number;
  mac: string;
  base_seq: number;
  base_mac: string;
  stored_bytes: number;
  tombstones: number;
  checkpoint_operations: number;
  checkpoint_digest: string;
  checkpoint_mac: string;
}

export function toHead(row: HeadRow): JournalHead {
  return {
    journalId: row.journal_id,
    keyId: row.key_id,
    format: row.format,
    seq: row.seq,
    mac: row.mac,
    baseSeq: row.base_seq,
    baseMac: row.base_mac,
    storedBytes: row.stored_bytes,
    tombstones: row.tombstones,
    checkpointOperations: row.checkpoint_operations,
    checkpointDigest: row.checkpoint_digest,
    checkpointMac: row.checkpoint_mac,
  };
}

/** The columns of an operation row a compaction reads to write its tombstone. */
export interface CompactedOperationRow {
  operation_id: string;
  request_digest: string;
  phase: string;
  receipt_status: string | null;
  attempts: number;
  revision: number;
  mutation_boundary: string;
  created_ms: number;
  finished_ms: number;
}

/** The fields a compacted operation's tombstone MAC covers: its row as read, its chain's last event (0 for none), and when it was compacted. */
export function tombstoneFieldsOf(row: CompactedOperationRow, lastSeq: number | null | undefined, compactedMs: number): TombstoneFields {
  return {
    operationId: row.operation_id,
    requestDigest: row.request_digest,
    phase: row.phase,
    receiptStatus: row.receipt_status,
    attempts: row.attempts,
    revision: row.revision,
    mutationBoundary: row.mutation_boundary,
    lastSeq: lastSeq ?? 0,
    createdMs: row.created_ms,
    finishedMs: row.finished_ms,
    compactedMs,
  };
}

/** A tombstone row: the operation's row as compacted, its chain's last event, when, and the MAC over them. */
export interface TombstoneRow extends CompactedOperationRow {
  last_seq: number;
  compacted_ms: number;
  mac: string;
}

export function toTombstone(row: TombstoneRow): OperationTombstone {
  return {
    operationId: row.operation_id,
    requestDigest: row.request_digest,
    phase: row.phase,
    receiptStatus: row.receipt_status,
    attempts: row.attempts,
    revision: row.revision,
    mutationBoundary: row.mutation_boundary,
    lastSeq: row.last_seq,
    createdMs: row.created_ms,
    finishedMs: row.finished_ms,
    compactedMs: row.compacted_ms,
    mac: row.mac,
  };
}

export interface BreakerRow {
  provider: string;
  state: string;
  failures: number;
  open_until_ms: number | null;
  probe_token: string | null;
  probe_expires_ms: number | null;
  revision: number;
  updated_ms: number;
}

export function toBreaker(row: BreakerRow): BreakerRecord {
  return {
    provider: row.provider,
    state: row.state as BreakerState,
    failures: row.failures,
    openUntilMs: row.open_until_ms,
    probeToken: row.probe_token,
    probeExpiresMs: row.probe_expires_ms,
    revision: row.revision,
    updatedMs: row.updated_ms,
  };
}

export interface CheckpointRow {
  operation_id: string;
  chain_seq: number;
  chain_mac: string;
}

export function toCheckpointEntry(row: CheckpointRow): CheckpointEntry {
  return { operationId: row.operation_id, chainSeq: row.chain_seq, chainMac: row.chain_mac };
}
