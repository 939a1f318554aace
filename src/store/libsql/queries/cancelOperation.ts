import type { UsedControlAction } from "../../../core/decideCancel.js";
import { CANCEL_ACTION, decideCancel } from "../../../core/decideCancel.js";
import type { Receipt } from "../../../receipt/receiptTypes.js";
import type { TombstoneRow } from "../../rows/operationRows.js";
import { liveOperation, toOperation, toTombstone } from "../../rows/operationRows.js";
import type { CancelResult, OperationRecord } from "../../Store.js";
import type { GuardedWrite } from "../batchGuard.js";
import { applyGuarded, guard, joinWrites } from "../batchGuard.js";
import { journalIdOf } from "../journalIdOf.js";
import type { LibsqlContext } from "../libsqlContext.js";
import { statement } from "../LibsqlClientLike.js";
import { firstRowIn } from "../libsqlRows.js";
import { requireAuthentic } from "../operationAuthenticity.js";
import { optimisticWrite } from "../optimisticWrite.js";
import { rowsWithLatestEventIn, withLatestEvent } from "../rowWithLatestEvent.js";
import { rowUnchanged, transitionWrite } from "../transitionWrite.js";

/**
 * A cancel: reads, in one snapshot, the controlActionId's record, the operation's row with its latest
 * event (its tombstone when there is none); src/core/decideCancel decides (a repeated id answers its
 * first outcome, the phase decides the rest); then the row is authenticated and the transition and
 * the id's record written in one batch, guarded on the id being still unused and the row unchanged.
 * A cancel that raced another write is read and decided again.
 */
export function cancelOperation(
  ctx: LibsqlContext,
  operationId: string,
  controlActionId: string,
  cancelledReceipt: (operation: OperationRecord, taskJson: string) => Receipt,
): Promise<CancelResult> {
  return optimisticWrite(ctx, `cancelling operation ${operationId}`, async (): Promise<CancelResult> => {
    const [usedResult, liveResult, tombstoneResult] = await ctx.client.batch(
      [
        statement("SELECT operation_id AS operationId, action, outcome FROM control_actions WHERE control_action_id = ?", controlActionId),
        withLatestEvent("SELECT * FROM operations WHERE operation_id = ?", "", operationId),
        statement("SELECT * FROM operation_tombstones WHERE operation_id = ?", operationId),
      ],
      "read",
    );
    const used = firstRowIn<UsedControlAction>(usedResult);
    const read = rowsWithLatestEventIn(liveResult)[0];
    const tombstoneRow = read === undefined ? firstRowIn<TombstoneRow>(tombstoneResult) : undefined;
    const now = ctx.clock();
    const verdict = decideCancel(
      { used, live: read === undefined ? undefined : liveOperation(read.row), tombstone: tombstoneRow === undefined ? undefined : toTombstone(tombstoneRow) },
      now,
      { operationId, controlActionId, cancelledReceipt },
    );
    if (verdict.kind === "answer") return verdict.result;

    const journalId = await journalIdOf(ctx);
    requireAuthentic(ctx, journalId, { row: verdict.row, latest: read?.latest });
    const change = verdict.transition === null ? undefined : transitionWrite(ctx, journalId, verdict.row, verdict.transition);
    const record: GuardedWrite = {
      guards: [
        guard("NOT EXISTS (SELECT 1 FROM control_actions WHERE control_action_id = ?)", controlActionId),
        ...(change === undefined ? [rowUnchanged(verdict.row)] : []),
      ],
      writes: [
        statement(
          "INSERT INTO control_actions (control_action_id, operation_id, action, outcome, created_ms) VALUES (?, ?, ?, ?, ?)",
          controlActionId,
          operationId,
          CANCEL_ACTION,
          verdict.outcome,
          now,
        ),
      ],
    };
    await applyGuarded(ctx.client, `cancelling operation ${operationId}`, change === undefined ? record : joinWrites(change.write, record));
    return { kind: "applied", outcome: verdict.outcome, operation: toOperation(change?.row ?? verdict.row) };
  });
}
