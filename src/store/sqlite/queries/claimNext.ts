import { randomUUID } from "node:crypto";
import { operationEvent } from "../../../journal/operationEvent.js";
import type { ClaimedOperation } from "../../Store.js";
import { appendJournalEvent } from "../appendJournalEvent.js";
import { stateOf, writeOperationRow } from "../operationRowSql.js";
import type { OperationRow } from "../rows.js";
import { toOperation } from "../rows.js";
import type { SqliteContext } from "../sqliteContext.js";

/**
 * Claims the oldest eligible queued operation: running, one more attempt, a fresh lease token that
 * fences every later write of this attempt. Runs in BEGIN IMMEDIATE (SQLite has one writer, so the
 * select-then-update cannot race; PostgreSQL does the same with FOR UPDATE SKIP LOCKED).
 */
export function claimNext(ctx: SqliteContext, runnerId: string, leaseMs: number, onlyOperationId?: string): ClaimedOperation | undefined {
  const now = ctx.clock();
  const row = (
    onlyOperationId === undefined
      ? ctx.sql("SELECT * FROM operations WHERE phase = 'queued' AND run_after_ms <= ? ORDER BY run_after_ms, created_ms, operation_id LIMIT 1").get(now)
      : ctx.sql("SELECT * FROM operations WHERE phase = 'queued' AND run_after_ms <= ? AND operation_id = ?").get(now, onlyOperationId)
  ) as OperationRow | undefined;
  if (row === undefined) return undefined;

  const token = randomUUID();
  const next: OperationRow = {
    ...row,
    phase: "running",
    revision: row.revision + 1,
    attempts: row.attempts + 1,
    lease_token: token,
    lease_owner: runnerId,
    lease_expires_ms: now + leaseMs,
    updated_ms: now,
  };
  appendJournalEvent(ctx, operationEvent("operation_claimed", stateOf(next), { attempt: next.attempts, runner: runnerId, leaseExpiresMs: now + leaseMs }), now);
  writeOperationRow(ctx, next);
  ctx.sql("INSERT INTO attempts (operation_id, attempt, runner_id, started_ms) VALUES (?, ?, ?, ?)").run(next.operation_id, next.attempts, runnerId, now);
  return { operation: toOperation(next), taskJson: next.task_json, lease: { operationId: next.operation_id, token }, attempt: next.attempts };
}
