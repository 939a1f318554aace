import { checkpointDigest } from "../../../journal/checkpointDigest.js";
import { checkpointRegression } from "../../../journal/checkpointRegression.js";
import { resealHead } from "../../../journal/sealEvent.js";
import { CHECKPOINT_REGRESSION_SQL } from "../../rows/checkpointRegressionSql.js";
import type { CheckpointRow } from "../../rows/operationRows.js";
import { toCheckpointEntry } from "../../rows/operationRows.js";
import { CheckpointRefusedError } from "../../storeErrors.js";
import { applyGuarded } from "../batchGuard.js";
import { headIn, headUnchanged, requireHead, SELECT_HEAD, writeHead } from "../journalHead.js";
import type { LibsqlContext } from "../libsqlContext.js";
import type { LibsqlStatement } from "../LibsqlClientLike.js";
import { statement } from "../LibsqlClientLike.js";
import { firstRowIn, rowsIn } from "../libsqlRows.js";
import { optimisticWrite } from "../optimisticWrite.js";

/** Checkpoint entries per INSERT statement (three arguments each, well under SQLite's limit). */
const ENTRIES_PER_INSERT = 200;

/**
 * Replaces the checkpoint with every live operation's chain head as its row names it, and signs the
 * list's count and digest into the head; refused (the old one kept) when the stored checkpoint no
 * longer holds (journal/checkpointRegression). Everything is read in one snapshot and written in one
 * batch guarded on the head as read: an operation that moves on in between is listed at the place it
 * was read at, which its chain still passes through; a compaction in between changes the head and
 * refuses the batch, and the checkpoint is taken again.
 */
export function writeCheckpoint(ctx: LibsqlContext): Promise<number> {
  return optimisticWrite(ctx, "writing the journal checkpoint", async () => {
    const [headResult, storedResult, regressedResult, entriesResult] = await ctx.client.batch(
      [
        SELECT_HEAD,
        statement("SELECT * FROM journal_checkpoint"),
        statement(CHECKPOINT_REGRESSION_SQL),
        statement("SELECT operation_id, chain_seq, chain_mac FROM operations"),
      ],
      "read",
    );
    const head = requireHead(ctx, headIn(headResult));
    const stored = rowsIn<CheckpointRow>(storedResult).map(toCheckpointEntry);
    const refused = checkpointRegression(ctx.sealer, head, stored, firstRowIn<{ operation_id: string }>(regressedResult)?.operation_id);
    if (refused !== null) throw new CheckpointRefusedError(refused);
    const entries = rowsIn<CheckpointRow>(entriesResult).map(toCheckpointEntry);
    const inserts: LibsqlStatement[] = [];
    for (let start = 0; start < entries.length; start += ENTRIES_PER_INSERT) {
      const chunk = entries.slice(start, start + ENTRIES_PER_INSERT);
      inserts.push(
        statement(
          `INSERT INTO journal_checkpoint (operation_id, chain_seq, chain_mac) VALUES ${chunk.map(() => "(?, ?, ?)").join(", ")}`,
          ...chunk.flatMap((e) => [e.operationId, e.chainSeq, e.chainMac]),
        ),
      );
    }
    const next = resealHead(ctx.sealer, head, { checkpointOperations: entries.length, checkpointDigest: checkpointDigest(entries) });
    await applyGuarded(ctx.client, "writing the journal checkpoint", {
      guards: [headUnchanged(head)],
      writes: [statement("DELETE FROM journal_checkpoint"), ...inserts, writeHead(next)],
    });
    return entries.length;
  });
}
