import { checkpointDigest } from "../../../journal/checkpointDigest.js";
import { checkpointRegression } from "../../../journal/checkpointRegression.js";
import { CHECKPOINT_REGRESSION_SQL } from "../../rows/checkpointRegressionSql.js";
import { CheckpointRefusedError } from "../../storeErrors.js";
import type { CheckpointEntry } from "../../../journal/journalTypes.js";
import { resealHead } from "../../../journal/sealEvent.js";
import type { CheckpointRow } from "../../rows/operationRows.js";
import { toCheckpointEntry } from "../../rows/operationRows.js";
import { lockHead, writeHead } from "../journalHeadPg.js";
import type { PgTx } from "../pgContext.js";

/**
 * Replaces the checkpoint with every live operation's chain head as its row names it (one statement,
 * one snapshot), and signs the list's count and digest into the head. The head is locked first, so a
 * compaction (which also writes the head) is either wholly before or wholly after it; operations that
 * advance meanwhile are listed at an earlier place of their chain, which verifies all the same.
 * Refused (the old one kept) when the stored checkpoint no longer holds (journal/checkpointRegression).
 */
export async function writeCheckpoint(tx: PgTx): Promise<number> {
  const head = await lockHead(tx);
  const stored = (await tx.rows<CheckpointRow>("SELECT * FROM journal_checkpoint")).map(toCheckpointEntry);
  const regressed = await tx.one<{ operation_id: string }>(CHECKPOINT_REGRESSION_SQL);
  const refused = checkpointRegression(tx.ctx.sealer, head, stored, regressed?.operation_id);
  if (refused !== null) throw new CheckpointRefusedError(refused);
  const entries = (await tx.rows<CheckpointRow>("SELECT operation_id, chain_seq, chain_mac FROM operations")).map(toCheckpointEntry);
  await tx.run("DELETE FROM journal_checkpoint");
  await tx.run("INSERT INTO journal_checkpoint (operation_id, chain_seq, chain_mac) SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[])", [
    entries.map((e) => e.operationId),
    entries.map((e) => e.chainSeq),
    entries.map((e) => e.chainMac),
  ]);
  await writeHead(tx, resealHead(tx.ctx.sealer, head, { checkpointOperations: entries.length, checkpointDigest: checkpointDigest(entries) }));
  return entries.length;
}

/** A page of the checkpoint's list by operation id. */
export async function readCheckpoint(tx: PgTx, afterOperationId: string, limit: number): Promise<CheckpointEntry[]> {
  return (
    await tx.rows<CheckpointRow>("SELECT * FROM journal_checkpoint WHERE operation_id > $1 ORDER BY operation_id LIMIT $2", [afterOperationId, limit])
  ).map(toCheckpointEntry);
}
