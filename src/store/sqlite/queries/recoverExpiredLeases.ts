import type { AttemptResolution, ExpiredLease, RecoveredLease } from "../../Store.js";
import type { OperationRow } from "../rows.js";
import { toOperation } from "../rows.js";
import type { SqliteContext } from "../sqliteContext.js";
import { applyResolution } from "./applyResolution.js";

/**
 * Resolves running operations whose lease expired: their runner stopped renewing (crash, kill,
 * partition). The attempt is recorded as lost; `decide` says what becomes of the operation. The
 * expiry is re-judged inside this transaction, so a heartbeat that just landed wins.
 */
export function recoverExpiredLeases(ctx: SqliteContext, decide: (expired: ExpiredLease) => AttemptResolution, limit: number): RecoveredLease[] {
  const now = ctx.clock();
  const rows = ctx
    .sql("SELECT * FROM operations WHERE phase = 'running' AND lease_expires_ms < ? ORDER BY lease_expires_ms LIMIT ?")
    .all(now, limit) as OperationRow[];
  return rows.map((row) => {
    const resolution = decide({ operation: toOperation(row), taskJson: row.task_json });
    const next = applyResolution(ctx, row, resolution, { outcome: "lost", errorCode: "lease_expired", provider: null });
    return { operationId: row.operation_id, resolution: resolution.kind, phase: next.phase as RecoveredLease["phase"] };
  });
}
