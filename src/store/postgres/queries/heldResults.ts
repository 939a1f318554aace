import type { HeldResult } from "../../Store.js";
import type { PgTx } from "../pgContext.js";

interface HeldRow {
  operation_id: string;
  attempt: number;
  sealed: string;
  expires_ms: number;
}

/** Keeps (or replaces) the sealed result of an operation's attempt (sealed by the operations service; the store never sees it in the clear). */
export async function holdResult(tx: PgTx, held: HeldResult): Promise<void> {
  await tx.run(
    `INSERT INTO held_results (operation_id, attempt, sealed, expires_ms) VALUES ($1, $2, $3, $4)
     ON CONFLICT (operation_id) DO UPDATE SET attempt = excluded.attempt, sealed = excluded.sealed, expires_ms = excluded.expires_ms`,
    [held.operationId, held.attempt, held.sealed, held.expiresMs],
  );
}

/** The held result, unless it has expired on the store's clock. */
export async function readHeldResult(tx: PgTx, operationId: string): Promise<HeldResult | undefined> {
  const row = await tx.one<HeldRow>("SELECT * FROM held_results WHERE operation_id = $1 AND expires_ms > $2", [operationId, tx.now]);
  return row === undefined ? undefined : { operationId: row.operation_id, attempt: row.attempt, sealed: row.sealed, expiresMs: row.expires_ms };
}

/** Deletes every expired result; returns how many. */
export function dropExpiredResults(tx: PgTx): Promise<number> {
  return tx.run("DELETE FROM held_results WHERE expires_ms <= $1", [tx.now]);
}
