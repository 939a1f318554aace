import type { AttemptRecord } from "../../Store.js";
import type { AttemptRow } from "../rows.js";
import { toAttempt } from "../rows.js";
import type { SqliteContext } from "../sqliteContext.js";

/** Every attempt of an operation, first to last. */
export function listAttempts(ctx: SqliteContext, operationId: string): AttemptRecord[] {
  const rows = ctx.sql("SELECT * FROM attempts WHERE operation_id = ? ORDER BY attempt").all(operationId) as AttemptRow[];
  return rows.map(toAttempt);
}
