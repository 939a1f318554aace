import type { Transition } from "../../core/operationTransitions.js";
import { sealChainEvent } from "../../journal/sealEvent.js";
import type { OperationRow } from "../rows/operationRows.js";
import { chainHeadOf, rowAfter } from "../rows/operationRows.js";
import { insertEvent } from "./appendJournalEvent.js";
import type { GuardedWrite } from "./batchGuard.js";
import { guard } from "./batchGuard.js";
import type { LibsqlContext } from "./libsqlContext.js";
import type { LibsqlStatement } from "./LibsqlClientLike.js";
import { statement } from "./LibsqlClientLike.js";

/**
 * A guard that holds while the operation row is the one read: the same revision (every transition
 * bumps it), the same chain head (the event the next one chains from), and the same lease expiry and
 * change time (a heartbeat moves both without a transition, and the write below would undo it).
 */
export function rowUnchanged(row: OperationRow): LibsqlStatement {
  return guard(
    "EXISTS (SELECT 1 FROM operations WHERE operation_id = ? AND revision = ? AND chain_seq = ? AND chain_mac = ? AND updated_ms = ? AND lease_expires_ms IS ?)",
    row.operation_id,
    row.revision,
    row.chain_seq,
    row.chain_mac,
    row.updated_ms,
    row.lease_expires_ms,
  );
}

/**
 * Writes every mutable column of an operation row. With `receiptIsLastEvent`, the receipt is the
 * event inserted just before in the same batch (its seq is SQLite's last_insert_rowid()).
 */
function writeOperationRow(row: OperationRow, receiptIsLastEvent: boolean): LibsqlStatement {
  return statement(
    `UPDATE operations SET phase = ?, revision = ?, attempts = ?, mutation_boundary = ?, run_after_ms = ?, lease_token = ?, lease_owner = ?,
       lease_expires_ms = ?, cancel_requested_ms = ?, receipt_status = ?, receipt_seq = ${receiptIsLastEvent ? "last_insert_rowid()" : "?"},
       updated_ms = ?, finished_ms = ?, approval_expires_ms = ?, chain_seq = ?, chain_mac = ?, stored_bytes = ?
     WHERE operation_id = ?`,
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
    ...(receiptIsLastEvent ? [] : [row.receipt_seq]),
    row.updated_ms,
    row.finished_ms,
    row.approval_expires_ms,
    row.chain_seq,
    row.chain_mac,
    row.stored_bytes,
    row.operation_id,
  );
}

/**
 * A transition decided in src/core/operationTransitions.ts as one guarded write: its event sealed
 * onto the operation's own chain (whose head the row names), the row rewritten with the chain's new
 * head and byte count, both refused when the row changed since it was read. A finishing event becomes
 * the operation's receipt event. The journal head is not touched. Returns the row as written (its
 * receipt_seq is known only to the database).
 */
export function transitionWrite(
  ctx: LibsqlContext,
  journalId: string,
  row: OperationRow,
  transition: Transition,
  leaseToken?: string,
): { write: GuardedWrite; row: OperationRow } {
  const sealed = sealChainEvent(ctx.sealer, journalId, chainHeadOf(row), transition.event, transition.next.updatedMs);
  const next = {
    ...rowAfter(row, transition.next, leaseToken),
    chain_seq: sealed.head.seq,
    chain_mac: sealed.head.mac,
    stored_bytes: row.stored_bytes + sealed.bytes,
  };
  const finishing = transition.event.type === "operation_finished";
  return { write: { guards: [rowUnchanged(row)], writes: [insertEvent(sealed.event), writeOperationRow(next, finishing)] }, row: next };
}
