import { decideApproval as decide, expireApproval } from "../../../core/decideApproval.js";
import { liveOperation, toOperation } from "../../rows/operationRows.js";
import type { BlockedReceiptFactory, DecideApprovalResult } from "../../Store.js";
import type { GuardedWrite } from "../batchGuard.js";
import { applyGuarded, joinWrites } from "../batchGuard.js";
import { journalIdOf } from "../journalIdOf.js";
import type { LibsqlContext } from "../libsqlContext.js";
import { isAuthentic, requireAuthentic } from "../operationAuthenticity.js";
import { optimisticWrite } from "../optimisticWrite.js";
import { rowsWithLatestEventIn, withLatestEvent } from "../rowWithLatestEvent.js";
import { transitionWrite } from "../transitionWrite.js";
import type { ApprovalDecision } from "../../Store.js";

/**
 * The owner's decision, judged on the row as read and authenticated here: src/core/decideApproval
 * decides (awaiting, the digest the owner was shown, before its expiry) and the transition it returns
 * is written guarded on that row, so a decision that raced another change is judged again.
 */
export function decideApproval(
  ctx: LibsqlContext,
  operationId: string,
  decision: ApprovalDecision,
  blockedReceipt: BlockedReceiptFactory,
): Promise<DecideApprovalResult> {
  return optimisticWrite(ctx, `deciding the approval of ${operationId}`, async (): Promise<DecideApprovalResult> => {
    const read = rowsWithLatestEventIn(await ctx.client.execute(withLatestEvent("SELECT * FROM operations WHERE operation_id = ?", "", operationId)))[0];
    const journalId = await journalIdOf(ctx);
    if (read !== undefined) requireAuthentic(ctx, journalId, read);
    const verdict = decide(read === undefined ? undefined : liveOperation(read.row), ctx.clock(), decision, blockedReceipt);
    if (verdict.kind === "answer") return verdict.result;
    const written = transitionWrite(ctx, journalId, verdict.row, verdict.transition);
    await applyGuarded(ctx.client, `deciding the approval of ${operationId}`, written.write);
    return { kind: verdict.answer, operation: toOperation(written.row) };
  });
}

/** Ends every operation whose wait for approval expired before now (oldest expiry first; core/decideApproval.expireApproval), in one guarded batch. */
export function expireApprovals(ctx: LibsqlContext, blockedReceipt: BlockedReceiptFactory, limit: number): Promise<string[]> {
  return optimisticWrite(ctx, "expiring approvals", async () => {
    const journalId = await journalIdOf(ctx);
    const now = ctx.clock();
    const due = rowsWithLatestEventIn(
      await ctx.client.execute(
        withLatestEvent(
          "SELECT * FROM operations WHERE phase = 'awaiting_approval' AND approval_expires_ms <= ? ORDER BY approval_expires_ms LIMIT ?",
          "o.approval_expires_ms",
          now,
          limit,
        ),
      ),
    );
    const expired: string[] = [];
    const writes: GuardedWrite[] = [];
    for (const read of due) {
      if (!isAuthentic(ctx, journalId, read)) continue;
      writes.push(transitionWrite(ctx, journalId, read.row, expireApproval(liveOperation(read.row), now, blockedReceipt)).write);
      expired.push(read.row.operation_id);
    }
    if (writes.length > 0) await applyGuarded(ctx.client, "expiring approvals", joinWrites(...writes));
    return expired;
  });
}
