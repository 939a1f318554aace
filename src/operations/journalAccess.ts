import type { ServiceFailure } from "./serviceTypes.js";
import type { ServiceContext } from "./serviceContext.js";

/**
 * The journal's id, once the head was found and written under this service's key (checked once per
 * service, then remembered: the id never changes, and the store re-checks the key on every append).
 * Anything else fails closed: a journal under another key is never reported from.
 */
export async function journalIdentity(ctx: ServiceContext): Promise<{ ok: true; journalId: string } | ServiceFailure> {
  if (ctx.journalId !== undefined) return { ok: true, journalId: ctx.journalId };
  const head = await ctx.store.readJournalHead();
  if (head === undefined) return { ok: false, code: "journal_tampered", message: 'The journal head is missing; run "errand journal verify".' };
  if (!ctx.sealer.macEquals(ctx.sealer.keyId, head.keyId)) {
    return {
      ok: false,
      code: "journal_tampered",
      message:
        'The journal was written with a different key than ERRAND_HOME/keys/master.key holds; restore the original key, or, if "errand key rotate" ran on another machine sharing this database, copy its new keys/master.key here (errand refuses to read or extend the journal under another key).',
    };
  }
  ctx.journalId = head.journalId;
  return { ok: true, journalId: head.journalId };
}
