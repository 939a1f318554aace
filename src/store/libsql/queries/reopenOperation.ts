import { decideReopen } from "../../../core/decideReopen.js";
import { toOperation } from "../../rows/operationRows.js";
import type { OperationRecord } from "../../Store.js";
import { applyGuarded } from "../batchGuard.js";
import { journalIdOf } from "../journalIdOf.js";
import type { LibsqlContext } from "../libsqlContext.js";
import { statement } from "../LibsqlClientLike.js";
import { requireAuthentic } from "../operationAuthenticity.js";
import { optimisticWrite } from "../optimisticWrite.js";
import { rowsWithLatestEventIn, withLatestEvent } from "../rowWithLatestEvent.js";
import { transitionWrite } from "../transitionWrite.js";

/**
 * Applies the reopen transition (blocked → queued) that src/core/decideReopen returns while the row
 * is still blocked at the revision the caller judged (a concurrent change wins), once the row matches
 * its journal. The row-only columns the transition does not cover are set in the same batch: the
 * receipt is detached and the attempt limit raised.
 */
export function reopenOperation(
  ctx: LibsqlContext,
  operationId: string,
  expectedRevision: number,
  extraAttempts: number,
  reason: string,
): Promise<OperationRecord | undefined> {
  return optimisticWrite(ctx, `reopening operation ${operationId}`, async () => {
    const read = rowsWithLatestEventIn(await ctx.client.execute(withLatestEvent("SELECT * FROM operations WHERE operation_id = ?", "", operationId)))[0];
    const transition = decideReopen(read === undefined ? undefined : toOperation(read.row), expectedRevision, ctx.clock(), extraAttempts, reason);
    if (read === undefined || transition === undefined) return undefined;
    const journalId = await journalIdOf(ctx);
    requireAuthentic(ctx, journalId, read);
    const { write, row } = transitionWrite(ctx, journalId, read.row, transition);
    const detach = statement("UPDATE operations SET receipt_seq = NULL, max_attempts = ? WHERE operation_id = ?", transition.next.maxAttempts, operationId);
    await applyGuarded(ctx.client, `reopening operation ${operationId}`, { guards: write.guards, writes: [...write.writes, detach] });
    return toOperation({ ...row, receipt_seq: null, max_attempts: transition.next.maxAttempts });
  });
}
