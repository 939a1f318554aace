import type { JournalHead } from "../../../../journal/journalTypes.js";
import { appendJournalEvent } from "../../appendJournalEvent.js";
import type { GuardedWrite } from "../../batchGuard.js";
import type { LibsqlContext } from "../../libsqlContext.js";

/** The write that journals a change of access state (operation-less, so compaction folds it away once old), chained from `head`. */
export function authChange(ctx: LibsqlContext, head: JournalHead, change: string, details: Record<string, unknown>, atMs: number): GuardedWrite {
  return appendJournalEvent(ctx, head, { type: "auth_changed", operationId: null, body: { change, ...details } }, atMs).write;
}
