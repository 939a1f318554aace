import type { HeldResult } from "../../Store.js";
import type { SqliteContext } from "../sqliteContext.js";

interface HeldRow {
  operation_id: string;
  attempt: number;
  sealed: string;
  expires_ms: number;
}

/** Keeps (or replaces) the sealed result of an operation's attempt. */
export function holdResult(ctx: SqliteContext, held: HeldResult): void {
  ctx
    .sql(
      "INSERT INTO held_results (operation_id, attempt, sealed, expires_ms) VALUES (?, ?, ?, ?) ON CONFLICT (operation_id) DO UPDATE SET attempt = excluded.attempt, sealed = excluded.sealed, expires_ms = excluded.expires_ms",
    )
    .run(held.operationId, held.attempt, held.sealed, held.expiresMs);
}

/** The held result, unless it has expired on the store's clock. */
export function readHeldResult(ctx: SqliteContext, operationId: string): HeldResult | undefined {
  const row = ctx.sql("SELECT * FROM held_results WHERE operation_id = ? AND expires_ms > ?").get(operationId, ctx.clock()) as HeldRow | undefined;
  return row === undefined ? undefined : { operationId: row.operation_id, attempt: row.attempt, sealed: row.sealed, expiresMs: row.expires_ms };
}

/** Deletes every expired result; returns how many. */
export function dropExpiredResults(ctx: SqliteContext): number {
  return ctx.sql("DELETE FROM held_results WHERE expires_ms <= ?").run(ctx.clock()).changes;
}
