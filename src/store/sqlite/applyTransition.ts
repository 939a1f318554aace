import type { OperationRecord } from "../Store.js";
import type { Transition } from "../operationTransitions.js";
import { appendJournalEvent } from "./appendJournalEvent.js";
import { writeOperationRow } from "./operationRowSql.js";
import type { OperationRow } from "./rows.js";
import type { SqliteContext } from "./sqliteContext.js";

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

/**
 * Persists a transition decided in src/store/operationTransitions.ts: its event is sealed onto the
 * journal and the row rewritten, in the caller's write transaction. A finishing event becomes the
 * operation's receipt event.
 */
export function applyTransition(ctx: SqliteContext, row: OperationRow, transition: Transition, leaseToken?: string): OperationRow {
  const event = appendJournalEvent(ctx, transition.event, transition.next.updatedMs);
  const next = rowAfter(row, transition.next, leaseToken);
  const stored = transition.event.type === "operation_finished" ? { ...next, receipt_seq: event.seq } : next;
  writeOperationRow(ctx, stored);
  return stored;
}
