import { genesisHead } from "../../journal/sealEvent.js";
import { insertHeadIfAbsent } from "./journalHead.js";
import type { LibsqlContext } from "./libsqlContext.js";

/**
 * Gives a new database its journal head (a fresh journal id, an empty checkpoint), unless another
 * process gave it one first. A head already there is left exactly as it is, whatever its key: writes
 * then refuse a journal under another key (journalHead.requireHead) and `journal verify` says why.
 * A libSQL database never holds the single-chain journal of older errands, so nothing is converted.
 */
export async function ensureJournalHead(ctx: LibsqlContext): Promise<void> {
  await ctx.client.execute(insertHeadIfAbsent(genesisHead(ctx.sealer, crypto.randomUUID())));
}
