import type { HeldResult } from "../../Store.js";
import type { LibsqlContext } from "../libsqlContext.js";
import { statement } from "../LibsqlClientLike.js";
import { queryRow } from "../libsqlRows.js";

interface HeldRow {
  operation_id: string;
  attempt: number;
  sealed: string;
  expires_ms: number;
}

/** Keeps (or replaces) the sealed result of an operation's attempt. */
export async function holdResult(ctx: LibsqlContext, held: HeldResult): Promise<void> {
  await ctx.client.execute(
    statement(
      "INSERT INTO held_results (operation_id, attempt, sealed, expires_ms) VALUES (?, ?, ?, ?) ON CONFLICT (operation_id) DO UPDATE SET attempt = excluded.attempt, sealed = excluded.sealed, expires_ms = excluded.expires_ms",
      held.operationId,
      held.attempt,
      held.sealed,
      held.expiresMs,
    ),
  );
}

/** The held result, unless it has expired on the store's clock. */
export async function readHeldResult(ctx: LibsqlContext, operationId: string): Promise<HeldResult | undefined> {
  const row = await queryRow<HeldRow>(ctx.client, "SELECT * FROM held_results WHERE operation_id = ? AND expires_ms > ?", operationId, ctx.clock());
  return row === undefined ? undefined : { operationId: row.operation_id, attempt: row.attempt, sealed: row.sealed, expiresMs: row.expires_ms };
}

/** Deletes every expired result; returns how many. */
export async function dropExpiredResults(ctx: LibsqlContext): Promise<number> {
  return (await ctx.client.execute(statement("DELETE FROM held_results WHERE expires_ms <= ?", ctx.clock()))).rowsAffected;
}
