import { create } from "../../../core/operationTransitions.js";
import { eventStoredBytes, operationGenesis, sealChainEvent } from "../../../journal/sealEvent.js";
import { canonicalJson } from "../../../task/canonicalJson.js";
import type { OperationRow, TombstoneRow } from "../../rows/operationRows.js";
import { newOperationRow, toOperation, toTombstone } from "../../rows/operationRows.js";
import type { CreateOperationResult, NewOperation } from "../../Store.js";
import { insertEvent } from "../appendJournalEvent.js";
import { applyGuarded, guard } from "../batchGuard.js";
import { headIn, requireHead, SELECT_HEAD } from "../journalHead.js";
import type { LibsqlContext } from "../libsqlContext.js";
import { statement } from "../LibsqlClientLike.js";
import { firstRowIn, insertInto } from "../libsqlRows.js";
import { optimisticWrite } from "../optimisticWrite.js";

const utf8Bytes = (text: string): number => new TextEncoder().encode(text).byteLength;

/**
 * Inserts a queued operation (or one awaiting the owner's approval; operationTransitions.create) and
 * its operation_created event, unless the id is already taken (by a live operation or a tombstone) or
 * the new data would pass the quota. Read in one snapshot, decided here, written in one batch whose
 * guard re-checks, as the batch runs, that the id is still free and the quota still holds, so two
 * creates racing for one id or the last bytes of the quota cannot both win.
 */
export function createOperation(ctx: LibsqlContext, input: NewOperation, quotaBytes: number): Promise<CreateOperationResult> {
  const id = input.operationId;
  return optimisticWrite(ctx, `creating operation ${id}`, async (): Promise<CreateOperationResult> => {
    const [existing, tombstone, headResult, usage] = await ctx.client.batch(
      [
        statement("SELECT * FROM operations WHERE operation_id = ?", id),
        statement("SELECT * FROM operation_tombstones WHERE operation_id = ?", id),
        SELECT_HEAD,
        statement("SELECT coalesce(sum(stored_bytes), 0) AS n FROM operations"),
      ],
      "read",
    );
    const row = firstRowIn<OperationRow>(existing);
    if (row !== undefined) return { kind: "existing", operation: toOperation(row) };
    const compacted = firstRowIn<TombstoneRow>(tombstone);
    if (compacted !== undefined) return { kind: "compacted", tombstone: toTombstone(compacted) };

    const now = ctx.clock();
    const { next, event: draft } = create(input, now);
    const head = requireHead(ctx, headIn(headResult));
    const bodyText = canonicalJson(draft.body);
    const stored = head.storedBytes + (firstRowIn<{ n: number }>(usage)?.n ?? 0);
    const taskBytes = utf8Bytes(input.taskJson);
    if (stored + taskBytes + eventStoredBytes(bodyText) > quotaBytes) return { kind: "quota_exceeded", storedBytes: stored, quotaBytes };

    const sealed = sealChainEvent(ctx.sealer, head.journalId, operationGenesis(ctx.sealer, head.journalId, id), draft, now, bodyText);
    const created = newOperationRow(next, input.taskJson, sealed.head, taskBytes + sealed.bytes);
    const insert = insertInto("operations", { ...created });
    await applyGuarded(ctx.client, `creating operation ${id}`, {
      guards: [
        guard(
          `NOT EXISTS (SELECT 1 FROM operations WHERE operation_id = ?) AND NOT EXISTS (SELECT 1 FROM operation_tombstones WHERE operation_id = ?)
           AND (SELECT stored_bytes FROM journal_head WHERE id = 1) + (SELECT coalesce(sum(stored_bytes), 0) FROM operations) + ? <= ?`,
          id,
          id,
          created.stored_bytes,
          quotaBytes,
        ),
      ],
      writes: [insertEvent(sealed.event), statement(insert.sql, ...insert.args)],
    });
    return { kind: "created", operation: toOperation(created) };
  });
}
