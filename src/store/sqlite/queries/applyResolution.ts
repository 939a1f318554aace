import { operationEvent } from "../../../journal/operationEvent.js";
import type { AttemptResolution } from "../../Store.js";
import { appendJournalEvent } from "../appendJournalEvent.js";
import { stateOf, writeOperationRow } from "../operationRowSql.js";
import type { OperationRow } from "../rows.js";
import type { SqliteContext } from "../sqliteContext.js";

/**
 * Ends the current attempt of a running row: either finishes the operation (receipt in the event
 * body) or puts it back in the queue after a delay; the event says how the attempt ended, which is
 * where the attempt history is read from. The lease is released either way. Called inside the write
 * transaction that checked the fence and authenticated the row.
 */
export function applyResolution(ctx: SqliteContext, row: OperationRow, resolution: AttemptResolution): OperationRow {
  const now = ctx.clock();
  const released = { ...row, revision: row.revision + 1, lease_token: null, lease_owner: null, lease_expires_ms: null, updated_ms: now };

  if (resolution.kind === "requeue") {
    const next: OperationRow = { ...released, phase: "queued", run_after_ms: now + resolution.delayMs };
    const details = { attempt: row.attempts, reason: resolution.reason, runAfterMs: next.run_after_ms, attemptOutcome: resolution.attemptOutcome, errorCode: resolution.errorCode, provider: resolution.provider };
    appendJournalEvent(ctx, operationEvent("operation_requeued", stateOf(next), details), now);
    writeOperationRow(ctx, next);
    return next;
  }

  const boundary = resolution.receipt.mutationBoundary === "crossed" ? "crossed" : row.mutation_boundary;
  const next: OperationRow = { ...released, phase: resolution.phase, mutation_boundary: boundary, receipt_status: resolution.receipt.status, finished_ms: now };
  const event = appendJournalEvent(ctx, operationEvent("operation_finished", stateOf(next), { attempt: row.attempts, reason: resolution.reason, receipt: resolution.receipt }), now);
  writeOperationRow(ctx, { ...next, receipt_seq: event.seq });
  return next;
}
