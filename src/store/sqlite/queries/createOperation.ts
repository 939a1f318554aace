import { operationEvent } from "../../../journal/operationEvent.js";
import { eventStoredBytes } from "../../../journal/sealEvent.js";
import { canonicalJson } from "../../../task/canonicalJson.js";
import type { CreateOperationResult, NewOperation } from "../../Store.js";
import { appendJournalEvent } from "../appendJournalEvent.js";
import { requireHead } from "../journalHeadSql.js";
import { selectOperationRow, stateOf } from "../operationRowSql.js";
import type { OperationRow } from "../rows.js";
import { toOperation } from "../rows.js";
import type { SqliteContext } from "../sqliteContext.js";
import { selectTombstone } from "./readOperation.js";

/**
 * Inserts a queued operation (or one awaiting the owner's approval) and its operation_created event, unless the id is already taken (by a
 * live operation or a tombstone), or the new data would pass the quota. Runs in BEGIN IMMEDIATE, so
 * the answer is decided from the row as it stands, never from a racing insert's row count.
 */
export function createOperation(ctx: SqliteContext, input: NewOperation, quotaBytes: number): CreateOperationResult {
  const existing = selectOperationRow(ctx, input.operationId);
  if (existing !== undefined) return { kind: "existing", operation: toOperation(existing) };
  const tombstone = selectTombstone(ctx, input.operationId);
  if (tombstone !== undefined) return { kind: "compacted", tombstone };

  const now = ctx.clock();
  const row: OperationRow = {
    operation_id: input.operationId,
    request_digest: input.requestDigest,
    risk: input.risk,
    task_json: input.taskJson,
    phase: input.approvalTtlMs === undefined ? "queued" : "awaiting_approval",
    revision: 1,
    attempts: 0,
    max_attempts: input.maxAttempts,
    mutation_boundary: "not_crossed",
    run_after_ms: now,
    lease_token: null,
    lease_owner: null,
    lease_expires_ms: null,
    cancel_requested_ms: null,
    receipt_status: null,
    receipt_seq: null,
    created_ms: now,
    updated_ms: now,
    finished_ms: null,
    approval_expires_ms: input.approvalTtlMs === undefined ? null : now + input.approvalTtlMs,
  };
  const approval = row.approval_expires_ms === null ? {} : { approvalExpiresMs: row.approval_expires_ms };
  const draft = operationEvent("operation_created", stateOf(row), { ...input.details, ...approval, risk: input.risk, maxAttempts: input.maxAttempts });
  const taskBytes = Buffer.byteLength(input.taskJson, "utf8");
  const head = requireHead(ctx);
  const bodyText = canonicalJson(draft.body);
  if (head.storedBytes + taskBytes + eventStoredBytes(bodyText) > quotaBytes) return { kind: "quota_exceeded", storedBytes: head.storedBytes, quotaBytes };

  appendJournalEvent(ctx, draft, now, taskBytes, { head, bodyText });
  ctx
    .sql(
      `INSERT INTO operations (operation_id, request_digest, risk, task_json, phase, revision, attempts, max_attempts, mutation_boundary,
         run_after_ms, lease_token, lease_owner, lease_expires_ms, cancel_requested_ms, receipt_status, receipt_seq, created_ms, updated_ms, finished_ms, approval_expires_ms)
       VALUES (@operation_id, @request_digest, @risk, @task_json, @phase, @revision, @attempts, @max_attempts, @mutation_boundary,
         @run_after_ms, @lease_token, @lease_owner, @lease_expires_ms, @cancel_requested_ms, @receipt_status, @receipt_seq, @created_ms, @updated_ms, @finished_ms, @approval_expires_ms)`,
    )
    .run(row);
  return { kind: "created", operation: toOperation(row) };
}
