import { appendJournalEvent } from "../../appendJournalEvent.js";
import type { SqliteContext } from "../../sqliteContext.js";

/** Journals a change of access state (operation-less, so compaction folds it away once old). */
export function journalAuthChange(ctx: SqliteContext, change: string, details: Record<string, unknown>, atMs: number): void {
  appendJournalEvent(ctx, { type: "auth_changed", operationId: null, body: { change, ...details } }, atMs);
}
