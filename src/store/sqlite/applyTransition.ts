import { sealChainEvent } from "../../journal/sealEvent.js";
import type { Transition } from "../../core/operationTransitions.js";
import { insertEvent } from "./appendJournalEvent.js";
import { journalIdOf } from "./authenticRow.js";
import { writeOperationRow } from "./operationRowSql.js";
import type { OperationRow } from "../rows/operationRows.js";
import { chainHeadOf, rowAfter } from "../rows/operationRows.js";
import type { SqliteContext } from "./sqliteContext.js";

/**
 * Persists a transition decided in src/core/operationTransitions.ts: its event is sealed onto the
 * operation's own chain (whose head the row names) and the row rewritten with the chain's new head
 * and byte count, in the caller's write transaction. A finishing event becomes the operation's
 * receipt event. The journal head is not touched.
 */
export function applyTransition(ctx: SqliteContext, row: OperationRow, transition: Transition, leaseToken?: string): OperationRow {
  const sealed = sealChainEvent(ctx.sealer, journalIdOf(ctx), chainHeadOf(row), transition.event, transition.next.updatedMs);
  const event = insertEvent(ctx, sealed.event);
  const next = {
    ...rowAfter(row, transition.next, leaseToken),
    chain_seq: sealed.head.seq,
    chain_mac: sealed.head.mac,
    stored_bytes: row.stored_bytes + sealed.bytes,
  };
  const stored = transition.event.type === "operation_finished" ? { ...next, receipt_seq: event.seq } : next;
  writeOperationRow(ctx, stored);
  return stored;
}
