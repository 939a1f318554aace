import { eventStoredBytes, operationGenesis, sealChainEvent } from "../../../journal/sealEvent.js";
import { canonicalJson } from "../../../task/canonicalJson.js";
import type { CreateOperationResult, NewOperation } from "../../Store.js";
import { create } from "../../../core/operationTransitions.js";
import type { OperationRow } from "../../rows/operationRows.js";
import { newOperationRow, toOperation } from "../../rows/operationRows.js";
import { eventValues, INSERT_EVENT } from "../appendJournalEvent.js";
import { journalIdOf } from "../authenticRow.js";
import { usageUnderThisKey } from "../journalHeadPg.js";
import type { PgTx } from "../pgContext.js";
import { selectOperationRow } from "./operationRowPg.js";
import { selectTombstone } from "./readOperation.js";

const INSERT_OPERATION = `INSERT INTO operations (operation_id, request_digest, risk, task_json, phase, revision, attempts, max_attempts, mutation_boundary,
    run_after_ms, lease_token, lease_owner, lease_expires_ms, cancel_requested_ms, receipt_status, receipt_seq, created_ms, updated_ms, finished_ms, approval_expires_ms,
    chain_seq, chain_mac, stored_bytes, submitted_by)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24)
  ON CONFLICT (operation_id) DO NOTHING`;

/**
 * Inserts a queued operation (or one awaiting approval; operationTransitions.create) and its
 * operation_created event, unless the id is taken by a live operation or a tombstone, or the new
 * data would pass the quota. Two submits of one id are serialized by the primary key: the second
 * waits for the first to commit and sees it (ON CONFLICT DO NOTHING, then "existing"). The event
 * starts the operation's own chain; the journal head is not locked, so the quota is judged on the
 * usage as read, and submits racing each other can pass it by their own size (docs/SECURITY.md).
 */
export async function createOperation(tx: PgTx, input: NewOperation, quotaBytes: number): Promise<CreateOperationResult> {
  const existing = await selectOperationRow(tx, input.operationId);
  if (existing !== undefined) return { kind: "existing", operation: toOperation(existing) };
  const tombstone = await selectTombstone(tx, input.operationId);
  if (tombstone !== undefined) return { kind: "compacted", tombstone };

  const { next, event: draft } = create(input, tx.now);
  const taskBytes = Buffer.byteLength(input.taskJson, "utf8");
  const bodyText = canonicalJson(draft.body);
  const usage = await usageUnderThisKey(tx);
  if (usage + taskBytes + eventStoredBytes(bodyText) > quotaBytes) return { kind: "quota_exceeded", storedBytes: usage, quotaBytes };

  const journalId = await journalIdOf(tx);
  const sealed = sealChainEvent(tx.ctx.sealer, journalId, operationGenesis(tx.ctx.sealer, journalId, input.operationId), draft, tx.now, bodyText);
  const row = newOperationRow(next, input.taskJson, sealed.head, taskBytes + sealed.bytes);
  const inserted = await tx.run(INSERT_OPERATION, insertValues(row));
  if (inserted === 0) {
    const raced = await selectOperationRow(tx, input.operationId);
    if (raced !== undefined) return { kind: "existing", operation: toOperation(raced) };
    throw new Error(`operation ${input.operationId} was neither inserted nor found`);
  }
  await tx.run(INSERT_EVENT, eventValues(sealed.event));
  return { kind: "created", operation: toOperation(row) };
}

function insertValues(row: OperationRow): unknown[] {
  return [
    row.operation_id,
    row.request_digest,
    row.risk,
    row.task_json,
    row.phase,
    row.revision,
    row.attempts,
    row.max_attempts,
    row.mutation_boundary,
    row.run_after_ms,
    row.lease_token,
    row.lease_owner,
    row.lease_expires_ms,
    row.cancel_requested_ms,
    row.receipt_status,
    row.receipt_seq,
    row.created_ms,
    row.updated_ms,
    row.finished_ms,
    row.approval_expires_ms,
    row.chain_seq,
    row.chain_mac,
    row.stored_bytes,
    row.submitted_by,
  ];
}
