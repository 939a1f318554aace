import type { OperationRow } from "../rows/operationRows.js";
import type { SqliteContext } from "./sqliteContext.js";

/** Reads one operation row by id. */
export function selectOperationRow(ctx: SqliteContext, operationId: string): OperationRow | undefined {
  return ctx.sql("SELECT * FROM operations WHERE operation_id = ?").get(operationId) as OperationRow | undefined;
}

/** Writes every mutable column of an operation row computed by the caller. */
export function writeOperationRow(ctx: SqliteContext, row: OperationRow): void {
  ctx
    .sql(
      `UPDATE operations SET phase = @phase, revision = @revision, attempts = @attempts, mutation_boundary = @mutation_boundary,
         run_after_ms = @run_after_ms, lease_token = @lease_token, lease_owner = @lease_owner, lease_expires_ms = @lease_expires_ms,
         cancel_requested_ms = @cancel_requested_ms, receipt_status = @receipt_status, receipt_seq = @receipt_seq,
         updated_ms = @updated_ms, finished_ms = @finished_ms, approval_expires_ms = @approval_expires_ms,
         chain_seq = @chain_seq, chain_mac = @chain_mac, stored_bytes = @stored_bytes
       WHERE operation_id = @operation_id`,
    )
    .run(row);
}
