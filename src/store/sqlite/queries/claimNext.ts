import { randomUUID } from "node:crypto";
import type { ClaimedOperation } from "../../Store.js";
import { claim } from "../../../core/operationTransitions.js";
import { applyTransition } from "../applyTransition.js";
import { isAuthentic } from "../authenticRow.js";
import type { OperationRow } from "../../rows/operationRows.js";
import { toOperation } from "../../rows/operationRows.js";
import type { SqliteContext } from "../sqliteContext.js";

/**
 * Candidates read per page after the first. The first page is one row: the oldest candidate is
 * almost always authentic, and every row read is materialized with its task document. Later pages
 * are read only when rows were refused.
 */
const CANDIDATES = 8;

/**
 * Claims the oldest eligible queued operation whose row matches its latest journal event: running,
 * one more attempt, a fresh lease token that fences every later write of this attempt. A row edited
 * behind errand's back is skipped and reported (Store.takeIntegrityRefusals), never run. Runs in
 * BEGIN IMMEDIATE (SQLite has one writer, so the select-then-update cannot race; PostgreSQL does the
 * same with FOR UPDATE SKIP LOCKED).
 */
export function claimNext(ctx: SqliteContext, runnerId: string, leaseMs: number, onlyOperationId?: string): ClaimedOperation | undefined {
  const now = ctx.clock();
  if (onlyOperationId !== undefined) {
    const only = ctx.sql("SELECT * FROM operations WHERE phase = 'queued' AND run_after_ms <= ? AND operation_id = ?").get(now, onlyOperationId) as
      OperationRow | undefined;
    return only !== undefined && isAuthentic(ctx, only) ? claimRow(ctx, only, runnerId, leaseMs, now) : undefined;
  }
  for (let offset = 0; ;) {
    const limit = offset === 0 ? 1 : CANDIDATES;
    const rows = ctx
      .sql("SELECT * FROM operations WHERE phase = 'queued' AND run_after_ms <= ? ORDER BY run_after_ms, created_ms, operation_id LIMIT ? OFFSET ?")
      .all(now, limit, offset) as OperationRow[];
    const row = rows.find((candidate) => isAuthentic(ctx, candidate));
    if (row !== undefined) return claimRow(ctx, row, runnerId, leaseMs, now);
    if (rows.length < limit) return undefined;
    offset += limit;
  }
}

function claimRow(ctx: SqliteContext, row: OperationRow, runnerId: string, leaseMs: number, now: number): ClaimedOperation {
  const token = randomUUID();
  const next = applyTransition(ctx, row, claim(toOperation(row), now, { runnerId, leaseMs }), token);
  return { operation: toOperation(next), taskJson: next.task_json, lease: { operationId: next.operation_id, token }, attempt: next.attempts };
}

/** The earliest run_after_ms among queued operations (the operations_ready index answers it), or null. */
export function nextQueuedMs(ctx: SqliteContext): number | null {
  const row = ctx.sql("SELECT min(run_after_ms) AS next FROM operations WHERE phase = 'queued'").get() as { next: number | null };
  return row.next;
}
