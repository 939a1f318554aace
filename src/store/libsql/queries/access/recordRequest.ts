import type { RequestRecord } from "../../../AccessStore.js";
import { appendJournalEvent } from "../../appendJournalEvent.js";
import { applyGuarded } from "../../batchGuard.js";
import { requireHead, selectHead } from "../../journalHead.js";
import type { LibsqlContext } from "../../libsqlContext.js";
import { optimisticWrite } from "../../optimisticWrite.js";

/**
 * Journals what an authenticated caller did. Operation-less on purpose: an operation's own latest
 * event must stay the one that states its phase, so the operation id rides in the body.
 */
export function recordRequest(ctx: LibsqlContext, record: RequestRecord): Promise<void> {
  return optimisticWrite(ctx, "journaling a request", async () => {
    const head = requireHead(ctx, await selectHead(ctx));
    await applyGuarded(
      ctx.client,
      "journaling a request",
      appendJournalEvent(ctx, head, { type: "request_recorded", operationId: null, body: { ...record } }, ctx.clock()).write,
    );
  });
}
