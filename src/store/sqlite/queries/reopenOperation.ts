import { operationEvent } from "../../../journal/operationEvent.js";
import type { OperationRecord } from "../../Store.js";
import { appendJournalEvent } from "../appendJournalEvent.js";
import { selectOperationRow, stateOf, writeOperationRow } from "../operationRowSql.js";
import type { OperationRow } from "../rows.js";
import { toOperation } from "../rows.js";
import type { SqliteContext } from "../sqliteContext.js";
import { requireAuthentic } from "../authenticRow.js";

/**
 * blocked → queued for a refusal that was errand's own fault, judged by the caller on the
 * authenticated receipt; applied only while the row is still blocked at the revision the caller
 * judged (a concurrent change wins). The operation gets `extraAttempts` more attempts, its receipt
 * is detached (the next attempt writes a new one), and operation_reopened is journaled with the
 * refusal's code.
 */
export function reopenOperation(ctx: SqliteContext, operationId: string, expectedRevision: number, extraAttempts: number, reason: string): OperationRecord | undefined {
  const row = selectOperationRow(ctx, operationId);
  if (row === undefined || row.phase !== "blocked" || row.revision !== expectedRevision) return undefined;
  // The caller judged the authenticated receipt; the row it changes must be the one the journal states.
  requireAuthentic(ctx, row);
  const now = ctx.clock();
  const next: OperationRow = { ...row, phase: "queued", revision: row.revision + 1, run_after_ms: now, receipt_status: null, receipt_seq: null, finished_ms: null, updated_ms: now, max_attempts: row.attempts + extraAttempts };
  appendJournalEvent(ctx, operationEvent("operation_reopened", stateOf(next), { reason, maxAttempts: next.max_attempts }), now);
  writeOperationRow(ctx, next);
  ctx.sql("UPDATE operations SET max_attempts = ? WHERE operation_id = ?").run(next.max_attempts, operationId);
  return toOperation(next);
}
