import { randomUUID } from "node:crypto";
import type { ClaimedOperation } from "../../Store.js";
import { claim } from "../../operationTransitions.js";
import { applyTransition } from "../applyTransition.js";
import { isAuthentic } from "../authenticRow.js";
import type { OperationRow } from "../../rows/operationRows.js";
import { toOperation } from "../../rows/operationRows.js";
import type { SqliteContext } from "../sqliteContext.js";

/** Candidates read per page; more than one page is read only when rows were refused. */
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
  for (let offset = 0; ; offset += CANDIDATES) {
    const rows = (
      onlyOperationId === undefined
        ? ctx.sql("SELECT * FROM operations WHERE phase = 'queued' AND run_after_ms <= ? ORDER BY run_after_ms, created_ms, operation_id LIMIT ? OFFSET ?").all(now, CANDIDATES, offset)
        : ctx.sql("SELECT * FROM operations WHERE phase = 'queued' AND run_after_ms <= ? AND operation_id = ?").all(now, onlyOperationId)
    ) as OperationRow[];
    const row = rows.find((candidate) => isAuthentic(ctx, candidate));
    if (row !== undefined) return claimRow(ctx, row, runnerId, leaseMs, now);
    if (rows.length < CANDIDATES || onlyOperationId !== undefined) return undefined;
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
