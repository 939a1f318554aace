import type { RequestRecord } from "../../../AccessStore.js";
import { appendJournalEvent } from "../../appendJournalEvent.js";
import type { SqliteContext } from "../../sqliteContext.js";

/**
 * Journals what an authenticated caller did. Operation-less on purpose: an operation's own latest
 * event must stay the one that states its phase, so the operation id rides in the body.
 */
export function recordRequest(ctx: SqliteContext, record: RequestRecord): void {
  appendJournalEvent(ctx, { type: "request_recorded", operationId: null, body: { ...record } }, ctx.clock());
}
