import { sealNextEvent } from "../../journal/sealEvent.js";
import type { Transition } from "../operationTransitions.js";
import type { OperationRow } from "../rows/operationRows.js";
import { rowAfter } from "../rows/operationRows.js";
import { eventValues, INSERT_EVENT } from "./appendJournalEvent.js";
import { headUpdate, lockHead } from "./journalHeadPg.js";
import type { PgTx } from "./pgContext.js";

/** Every mutable column of an operation row; parameters $first.. in OPERATION_VALUES order. */
function operationUpdate(first: number): string {
  const columns = [
    "phase",
    "revision",
    "attempts",
    "mutation_boundary",
    "run_after_ms",
    "lease_token",
    "lease_owner",
    "lease_expires_ms",
    "cancel_requested_ms",
    "receipt_status",
    "receipt_seq",
    "updated_ms",
    "finished_ms",
    "approval_expires_ms",
    "max_attempts",
  ];
  return `UPDATE operations SET ${columns.map((c, i) => `${c} = $${first + i}`).join(", ")} WHERE operation_id = $${first + columns.length}`;
}

function operationValues(row: OperationRow): unknown[] {
  return [
    row.phase,
    row.revision,
    row.attempts,
    row.mutation_boundary,
    row.run_after_ms,
    row.lease_token,
    row.lease_owner,
    row.lease_expires_ms,
    row.cancel_requested_ms,
    row.receipt_status,
    row.receipt_seq,
    row.updated_ms,
    row.finished_ms,
    row.approval_expires_ms,
    row.max_attempts,
    row.operation_id,
  ];
}

/**
 * Persists a transition decided in src/store/operationTransitions.ts: its event is sealed onto the
 * journal, the head advanced and the row rewritten in one statement, inside the caller's write
 * transaction (which has locked the row). A finishing event becomes the operation's receipt event.
 */
export async function applyTransition(tx: PgTx, row: OperationRow, transition: Transition, leaseToken?: string): Promise<OperationRow> {
  const head = await lockHead(tx);
  const { row: event, head: next } = sealNextEvent(tx.ctx.sealer, head, transition.event, transition.next.updatedMs);
  const after = rowAfter(row, transition.next, leaseToken);
  // The receipt pointer follows the record's receipt status: set by a finishing event, detached when a reopen clears the status.
  const receiptSeq = transition.next.receiptStatus === null ? null : transition.event.type === "operation_finished" ? event.seq : row.receipt_seq;
  const stored: OperationRow = { ...after, max_attempts: transition.next.maxAttempts, receipt_seq: receiptSeq };
  const update = headUpdate(next, 9);
  await tx.run(`WITH event AS (${INSERT_EVENT}), head AS (${update.sql}) ${operationUpdate(18)}`, [...eventValues(event), ...update.values, ...operationValues(stored)]);
  tx.head = next;
  return stored;
}
