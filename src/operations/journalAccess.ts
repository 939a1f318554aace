import type { ServiceFailure } from "./serviceTypes.js";
import type { ServiceContext } from "./serviceContext.js";

/**
 * The journal's id, once the head was found and written under this service's key. Anything else
 * fails closed: a journal under another key is never appended to or reported from.
 */
export async function journalIdentity(ctx: ServiceContext): Promise<{ ok: true; journalId: string } | ServiceFailure> {
  const head = await ctx.store.readJournalHead();
  if (head === undefined) return { ok: false, code: "journal_tampered", message: "The journal head is missing; run \"errand journal verify\"." };
  if (!ctx.sealer.macEquals(ctx.sealer.keyId, head.keyId)) {
    return {
      ok: false,
      code: "journal_tampered",
      message: "The journal was written with a different key than ERRAND_HOME/keys/master.key holds; restore the original key (errand refuses to read or extend it under another).",
    };
  }
  return { ok: true, journalId: head.journalId };
}
