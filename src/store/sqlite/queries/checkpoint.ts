import { checkpointDigest } from "../../../journal/checkpointDigest.js";
import { checkpointRegression } from "../../../journal/checkpointRegression.js";
import { CHECKPOINT_REGRESSION_SQL } from "../../rows/checkpointRegressionSql.js";
import { CheckpointRefusedError } from "../../storeErrors.js";
import type { CheckpointEntry } from "../../../journal/journalTypes.js";
import { resealHead } from "../../../journal/sealEvent.js";
import type { CheckpointRow } from "../../rows/operationRows.js";
import { toCheckpointEntry } from "../../rows/operationRows.js";
import { requireHead, writeHead } from "../journalHeadSql.js";
import type { SqliteContext } from "../sqliteContext.js";

/**
 * Replaces the checkpoint with every live operation's chain head as its row names it now, and signs
 * the list's count and digest into the head, in one write transaction; refused (the old one kept) when
 * the stored checkpoint no longer holds (journal/checkpointRegression). Not on any operation's path:
 * `journal verify` (after a clean verdict) and compaction call it.
 */
export function writeCheckpoint(ctx: SqliteContext): number {
  const head = requireHead(ctx);
  const stored = (ctx.sql("SELECT * FROM journal_checkpoint").all() as CheckpointRow[]).map(toCheckpointEntry);
  const regressed = ctx.sql(CHECKPOINT_REGRESSION_SQL).get() as { operation_id: string } | undefined;
  const refused = checkpointRegression(ctx.sealer, head, stored, regressed?.operation_id);
  if (refused !== null) throw new CheckpointRefusedError(refused);
  const entries = (ctx.sql("SELECT operation_id, chain_seq, chain_mac FROM operations").all() as CheckpointRow[]).map(toCheckpointEntry);
  ctx.sql("DELETE FROM journal_checkpoint").run();
  const insert = ctx.sql("INSERT INTO journal_checkpoint (operation_id, chain_seq, chain_mac) VALUES (?, ?, ?)");
  for (const e of entries) insert.run(e.operationId, e.chainSeq, e.chainMac);
  writeHead(ctx, resealHead(ctx.sealer, head, { checkpointOperations: entries.length, checkpointDigest: checkpointDigest(entries) }));
  return entries.length;
}

/** A page of the checkpoint's list by operation id. */
export function readCheckpoint(ctx: SqliteContext, afterOperationId: string, limit: number): CheckpointEntry[] {
  return (ctx.sql("SELECT * FROM journal_checkpoint WHERE operation_id > ? ORDER BY operation_id LIMIT ?").all(afterOperationId, limit) as CheckpointRow[]).map(
    toCheckpointEntry,
  );
}
