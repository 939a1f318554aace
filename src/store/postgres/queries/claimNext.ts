import { randomUUID } from "node:crypto";
import type { ClaimedOperation } from "../../Store.js";
import { claim } from "../../../core/operationTransitions.js";
import type { OperationRow } from "../../rows/operationRows.js";
import { toOperation } from "../../rows/operationRows.js";
import { applyTransition } from "../applyTransition.js";
import { isAuthentic } from "../authenticRow.js";
import type { PgTx } from "../pgContext.js";
import type { RowWithLatestEvent } from "./rowWithLatestEvent.js";
import { selectRowWithLatestEvent } from "./rowWithLatestEvent.js";

/**
 * The oldest eligible queued operation that no other transaction holds, locked for this one. Rows
 * another runner is claiming right now are skipped, not waited for (FOR UPDATE SKIP LOCKED), so
 * runners on many machines never queue behind each other; `refused` are rows this call already
 * found tampered (it holds their locks, so SKIP LOCKED would hand them back).
 */
const NEXT_QUEUED = `SELECT * FROM operations
  WHERE phase = 'queued' AND run_after_ms <= $1 AND operation_id <> ALL($2::text[])
  ORDER BY run_after_ms, created_ms, operation_id LIMIT 1 FOR UPDATE SKIP LOCKED`;
const ONLY_QUEUED = "SELECT * FROM operations WHERE phase = 'queued' AND run_after_ms <= $1 AND operation_id = $2 FOR UPDATE SKIP LOCKED";

/**
 * Claims the oldest eligible queued operation whose row matches its latest journal event: running,
 * one more attempt (operationTransitions.claim), a fresh lease token that fences every later write
 * of this attempt, the lease timed on the database clock. A row edited behind errand's back is
 * skipped and reported (Store.takeIntegrityRefusals), never run.
 */
export async function claimNext(tx: PgTx, runnerId: string, leaseMs: number, onlyOperationId?: string): Promise<ClaimedOperation | undefined> {
  const row = await pickClaimable(tx, onlyOperationId);
  return row === undefined ? undefined : claimRow(tx, row, runnerId, leaseMs);
}

/**
 * The row claimNext would claim, locked and authenticated, without writing anything yet: a
 * finishing attempt picks its successor before it writes, so every row lock of its transaction is
 * taken before the one statement that stores both transitions (finishAttempt). `first` is the first
 * candidate when the caller already read it with claimableQuery ("none": it found none).
 */
export async function pickClaimable(tx: PgTx, onlyOperationId?: string, first?: RowWithLatestEvent | "none"): Promise<OperationRow | undefined> {
  const refused: string[] = [];
  for (let candidate = first; ; candidate = undefined) {
    candidate ??= await selectRowWithLatestEvent(tx, ...claimableQuery(tx, onlyOperationId, refused));
    if (candidate === undefined || candidate === "none") return undefined;
    const row = candidate.row;
    if (await isAuthentic(tx, row, candidate)) return row;
    if (onlyOperationId !== undefined) return undefined;
    refused.push(row.operation_id);
  }
}

/**
 * The selection pickClaimable starts from (locked, SKIP LOCKED), skipping `refused`; a finishing
 * attempt reads it in the statement that locks its leased row (finishAttempt) and hands the
 * candidate to pickClaimable, which reads further only when that candidate is refused.
 */
export function claimableQuery(tx: PgTx, onlyOperationId: string | undefined, refused: readonly string[] = []): [string, unknown[]] {
  return onlyOperationId === undefined ? [NEXT_QUEUED, [tx.now, refused]] : [ONLY_QUEUED, [tx.now, onlyOperationId]];
}

export async function claimRow(tx: PgTx, row: OperationRow, runnerId: string, leaseMs: number): Promise<ClaimedOperation> {
  const token = randomUUID();
  return claimedOperation(await applyTransition(tx, row, claim(toOperation(row), tx.now, { runnerId, leaseMs }), token), token);
}

/** What a claim hands the runner: the row as stored after the claim, and its lease token. */
export function claimedOperation(next: OperationRow, token: string): ClaimedOperation {
  return { operation: toOperation(next), taskJson: next.task_json, lease: { operationId: next.operation_id, token }, attempt: next.attempts };
}

/** The earliest run_after_ms among queued operations (the operations_ready index answers it), or null. */
export async function nextQueuedMs(tx: PgTx): Promise<number | null> {
  const row = await tx.one<{ next: number | null }>("SELECT min(run_after_ms) AS next FROM operations WHERE phase = 'queued'");
  return row?.next ?? null;
}
