import { eventStoredBytes, operationGenesis, sealChainEvent } from "../../../journal/sealEvent.js";
import { canonicalJson } from "../../../task/canonicalJson.js";
import type { CreateOperationResult, NewOperation } from "../../Store.js";
import { insertEvent } from "../appendJournalEvent.js";
import { journalUsage, requireHead } from "../journalHeadSql.js";
import { create } from "../../../core/operationTransitions.js";
import { selectOperationRow } from "../operationRowSql.js";
import { newOperationRow, toOperation } from "../../rows/operationRows.js";
import type { SqliteContext } from "../sqliteContext.js";
import { selectTombstone } from "./readOperation.js";

/**
 * Inserts a queued operation (or one awaiting the owner's approval; operationTransitions.create) and its operation_created event, unless the id is already taken (by a
 * live operation or a tombstone), or the new data would pass the quota. Runs in BEGIN IMMEDIATE, so
 * the answer is decided from the row as it stands, never from a racing insert's row count. The event
 * starts the operation's own chain; the row names its head.
 */
export function createOperation(ctx: SqliteContext, input: NewOperation, quotaBytes: number): CreateOperationResult {
  const existing = selectOperationRow(ctx, input.operationId);
  if (existing !== undefined) return { kind: "existing", operation: toOperation(existing) };
  const tombstone = selectTombstone(ctx, input.operationId);
  if (tombstone !== undefined) return { kind: "compacted", tombstone };

  const now = ctx.clock();
  const { next, event: draft } = create(input, now);
  const taskBytes = Buffer.byteLength(input.taskJson, "utf8");
  const head = requireHead(ctx);
  const bodyText = canonicalJson(draft.body);
  const usage = journalUsage(ctx, head);
  if (usage + taskBytes + eventStoredBytes(bodyText) > quotaBytes) return { kind: "quota_exceeded", storedBytes: usage, quotaBytes };

  const sealed = sealChainEvent(ctx.sealer, head.journalId, operationGenesis(ctx.sealer, head.journalId, input.operationId), draft, now, bodyText);
  insertEvent(ctx, sealed.event);
  const row = newOperationRow(next, input.taskJson, sealed.head, taskBytes + sealed.bytes);
  ctx
    .sql(
      `INSERT INTO operations (operation_id, request_digest, risk, task_json, phase, revision, attempts, max_attempts, mutation_boundary,
         run_after_ms, lease_token, lease_owner, lease_expires_ms, cancel_requested_ms, receipt_status, receipt_seq, created_ms, updated_ms, finished_ms, approval_expires_ms,
         chain_seq, chain_mac, stored_bytes, submitted_by)
       VALUES (@operation_id, @request_digest, @risk, @task_json, @phase, @revision, @attempts, @max_attempts, @mutation_boundary,
         @run_after_ms, @lease_token, @lease_owner, @lease_expires_ms, @cancel_requested_ms, @receipt_status, @receipt_seq, @created_ms, @updated_ms, @finished_ms, @approval_expires_ms,
         @chain_seq, @chain_mac, @stored_bytes, @submitted_by)`,
    )
    .run(row);
  return { kind: "created", operation: toOperation(row) };
}
