import type { LibsqlContext } from "./libsqlContext.js";
import { requireHead, selectHead } from "./journalHead.js";

/**
 * The journal's id, once its head says it was written under this store's key and in the format this
 * errand writes (another key is not tampering: it fails as such, see journalHead.requireHead). Read
 * once per store: the id never changes.
 */
export async function journalIdOf(ctx: LibsqlContext): Promise<string> {
  if (ctx.journalId !== undefined) return ctx.journalId;
  const head = requireHead(ctx, await selectHead(ctx));
  ctx.journalId = head.journalId;
  return head.journalId;
}
