import type { JournalEventRow, JournalEventType, JournalHead, OperationTombstone } from "../../journal/journalTypes.js";
import type { MutationBoundary, ReceiptStatus } from "../../receipt/receiptTypes.js";
import type { Risk } from "../../task/taskTypes.js";
import type { BreakerRecord, BreakerState, OperationPhase, OperationRecord } from "../Store.js";

/** Row shapes as SQLite returns them, and their mapping to the Store's records. */
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
  };
}

export interface EventRow {
  seq: number;
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
  seq: number;
  mac: string;
  base_seq: number;
  base_mac: string;
  stored_bytes: number;
  tombstones: number;
  checkpoint_mac: string;
}

export function toHead(row: HeadRow): JournalHead {
  return {
    journalId: row.journal_id,
    keyId: row.key_id,
    seq: row.seq,
    mac: row.mac,
    baseSeq: row.base_seq,
    baseMac: row.base_mac,
    storedBytes: row.stored_bytes,
    tombstones: row.tombstones,
    checkpointMac: row.checkpoint_mac,
  };
}

export interface TombstoneRow {
  operation_id: string;
  request_digest: string;
  phase: string;
  receipt_status: string | null;
  attempts: number;
  revision: number;
  mutation_boundary: string;
  last_seq: number;
  created_ms: number;
  finished_ms: number;
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
