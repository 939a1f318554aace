import { sealChainEvent } from "../../journal/sealEvent.js";
import type { Transition } from "../../core/operationTransitions.js";
import type { OperationRow } from "../rows/operationRows.js";
import { chainHeadOf, rowAfter } from "../rows/operationRows.js";
import { eventValues, INSERT_EVENT } from "./appendJournalEvent.js";
import { journalIdOf } from "./authenticRow.js";
import type { PgTx } from "./pgContext.js";
import { shiftPlaceholders } from "./shiftPlaceholders.js";

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

/** Parameters one transition takes: the event's eight, then the row's columns, finishing, receipt_seq and operation_id. */
const PARAMETERS_PER_TRANSITION = 8 + COLUMNS.length + 3;

/** The UPDATE of a row after the event inserted by CTE `event` of the same statement; parameters $first.. in operationValues order. */
function operationUpdate(first: number, event: string): string {
  const n = COLUMNS.length;
  const p = (i: number) => `$${first + i}`;
  return `UPDATE operations SET ${COLUMNS.map((c, i) => `${c} = ${p(i)}`).join(", ")},
    receipt_seq = CASE WHEN ${p(n)}::boolean THEN (SELECT seq FROM ${event}) ELSE ${p(n + 1)}::bigint END
    WHERE operation_id = ${p(n + 2)} RETURNING receipt_seq`;
}

/**
 * One statement that stores `count` transitions of different operations: for each, its event
 * (CTE e<i>) and its row rewritten (CTE u<i>), returning each row's receipt_seq as r<i>. Every
 * data-modifying CTE runs exactly once whether or not it is referenced, all in the caller's transaction.
 */
const statements = new Map<number, string>();
function transitionsStatement(count: number): string {
  let sql = statements.get(count);
  if (sql !== undefined) return sql;
  const parts: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const base = i * PARAMETERS_PER_TRANSITION;
    parts.push(`e${i} AS (${shiftPlaceholders(INSERT_EVENT, base)})`, `u${i} AS (${operationUpdate(base + 9, `e${i}`)})`);
  }
  sql = `WITH ${parts.join(", ")} SELECT ${Array.from({ length: count }, (_, i) => `(SELECT receipt_seq FROM u${i}) AS r${i}`).join(", ")}`;
  statements.set(count, sql);
  return sql;
}

/** A transition of a locked row, sealed onto the operation's chain and ready to store. */
interface SealedTransition {
  stored: OperationRow;
  values: unknown[];
}

function sealTransition(tx: PgTx, journalId: string, row: OperationRow, transition: Transition, leaseToken?: string): SealedTransition {
  const sealed = sealChainEvent(tx.ctx.sealer, journalId, chainHeadOf(row), transition.event, transition.next.updatedMs);
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
  return { stored, values: [...eventValues(sealed.event), ...COLUMNS.map((c) => stored[c]), finishing, stored.receipt_seq, stored.operation_id] };
}

/** One transition for applyTransitions: the locked row, the transition decided for it, and a claim's fresh lease token. */
export interface TransitionOf {
  row: OperationRow;
  transition: Transition;
  leaseToken?: string;
}

/**
 * Persists transitions decided in src/core/operationTransitions.ts, each on a different locked
 * operation: every event is sealed onto its operation's own chain (whose head the locked row names)
 * and every row rewritten with its chain's new head and byte count, all in one statement (one round
 * trip) inside the caller's write transaction. The journal head is not touched, so runners working
 * on different operations never wait for each other here. A finishing event becomes the
 * operation's receipt event. Returns the rows as stored, in the order given.
 */
export async function applyTransitions(tx: PgTx, items: readonly TransitionOf[]): Promise<OperationRow[]> {
  if (new Set(items.map((item) => item.row.operation_id)).size !== items.length)
    throw new Error("applyTransitions: one transition per operation and statement");
  const journalId = await journalIdOf(tx);
  const sealed = items.map((item) => sealTransition(tx, journalId, item.row, item.transition, item.leaseToken));
  const written = await tx.one<Record<string, number | null>>(
    transitionsStatement(items.length),
    sealed.flatMap((s) => s.values),
  );
  return sealed.map((s, i) => ({ ...s.stored, receipt_seq: written?.[`r${i}`] ?? null }));
}

/** Persists one transition (applyTransitions with one item). */
export async function applyTransition(tx: PgTx, row: OperationRow, transition: Transition, leaseToken?: string): Promise<OperationRow> {
  const [stored] = await applyTransitions(tx, [{ row, transition, ...(leaseToken === undefined ? {} : { leaseToken }) }]);
  if (stored === undefined) throw new Error("applyTransitions returned no row");
  return stored;
}
