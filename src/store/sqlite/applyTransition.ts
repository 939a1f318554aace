import type { Transition } from "../operationTransitions.js";
import { appendJournalEvent } from "./appendJournalEvent.js";
import { writeOperationRow } from "./operationRowSql.js";
import type { OperationRow } from "../rows/operationRows.js";
import { rowAfter } from "../rows/operationRows.js";
import type { SqliteContext } from "./sqliteContext.js";

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
