import type { AttemptResolution, ExpiredLease, RecoveredLease } from "../../Store.js";
import type { OperationRow } from "../../rows/operationRows.js";
import { isAuthentic } from "../authenticRow.js";
import { toOperation } from "../../rows/operationRows.js";
import type { SqliteContext } from "../sqliteContext.js";
import { applyResolution } from "./applyResolution.js";

/**
 * Resolves running operations whose lease expired: their runner stopped renewing (crash, kill,
 * partition). The attempt is recorded as lost; `decide` says what becomes of the operation. The
 * expiry is re-judged inside this transaction, so a heartbeat that just landed wins. A row that does
 * not match its journal is refused (reported, left alone) and takes its place in the batch, so a
 * caller that stops at a short batch never loops on it.
 */
export function recoverExpiredLeases(ctx: SqliteContext, decide: (expired: ExpiredLease) => AttemptResolution, limit: number): RecoveredLease[] {
  const now = ctx.clock();
  const rows = ctx
    .sql("SELECT * FROM operations WHERE phase = 'running' AND lease_expires_ms < ? ORDER BY lease_expires_ms LIMIT ?")
    .all(now, limit) as OperationRow[];
  return rows
    .filter((row) => isAuthentic(ctx, row))
    .map((row) => {
      const resolution = decide({ operation: toOperation(row), taskJson: row.task_json });
      const next = applyResolution(ctx, row, resolution);
      return { operationId: row.operation_id, resolution: resolution.kind, phase: next.phase as RecoveredLease["phase"] };
    });
}
