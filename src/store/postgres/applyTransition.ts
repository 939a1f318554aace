import { sealChainEvent } from "../../journal/sealEvent.js";
import type { Transition } from "../operationTransitions.js";
import type { OperationRow } from "../rows/operationRows.js";
import { chainHeadOf, rowAfter } from "../rows/operationRows.js";
import { eventValues, INSERT_EVENT } from "./appendJournalEvent.js";
import { journalIdOf } from "./authenticRow.js";
import type { PgTx } from "./pgContext.js";

/** Every mutable column of an operation row but receipt_seq (set from the inserted event when it finishes). */
const COLUMNS = [
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
  "updated_ms",
  "finished_ms",
  "approval_expires_ms",
  "max_attempts",
  "chain_seq",
  "chain_mac",
  "stored_bytes",
] as const;

/** The UPDATE of a row after an event inserted in the same statement (CTE "event"); parameters $first.. in operationValues order. */
function operationUpdate(first: number): string {
  const n = COLUMNS.length;
  const p = (i: number) => `$${first + i}`;
  return `UPDATE operations SET ${COLUMNS.map((c, i) => `${c} = ${p(i)}`).join(", ")},
    receipt_seq = CASE WHEN ${p(n)}::boolean THEN (SELECT seq FROM event) ELSE ${p(n + 1)}::bigint END
    WHERE operation_id = ${p(n + 2)} RETURNING receipt_seq`;
}

function operationValues(row: OperationRow, finishing: boolean): unknown[] {
  return [...COLUMNS.map((c) => row[c]), finishing, row.receipt_seq, row.operation_id];
}

/**
 * Persists a transition decided in src/store/operationTransitions.ts: its event is sealed onto the
 * operation's own chain (whose head the locked row names) and the row rewritten with the chain's new
 * head and byte count, in one statement inside the caller's write transaction. The journal head is
 * not touched, so runners working on different operations never wait for each other here. A
 * finishing event becomes the operation's receipt event.
 */
export async function applyTransition(tx: PgTx, row: OperationRow, transition: Transition, leaseToken?: string): Promise<OperationRow> {
  const sealed = sealChainEvent(tx.ctx.sealer, await journalIdOf(tx), chainHeadOf(row), transition.event, transition.next.updatedMs);
  const after = rowAfter(row, transition.next, leaseToken);
  const finishing = transition.event.type === "operation_finished";
  // The receipt pointer follows the record's receipt status: set by a finishing event, detached when a reopen clears the status.
  const receiptSeq = transition.next.receiptStatus === null ? null : row.receipt_seq;
  const stored: OperationRow = {
    ...after,
    max_attempts: transition.next.maxAttempts,
    receipt_seq: receiptSeq,
    chain_seq: sealed.head.seq,
    chain_mac: sealed.head.mac,
    stored_bytes: Number(row.stored_bytes) + sealed.bytes,
  };
  const written = await tx.one<{ receipt_seq: number | null }>(`WITH event AS (${INSERT_EVENT}) ${operationUpdate(9)}`, [...eventValues(sealed.event), ...operationValues(stored, finishing)]);
  return { ...stored, receipt_seq: written?.receipt_seq ?? null };
}
