import { OWNER_SECRET_TABLE } from "../../../rows/authenticRows.js";
import { RowTamperedError } from "../../../storeErrors.js";
import { authenticRow, sealedUpsert } from "../../authenticRowWrite.js";
import { applyGuarded, joinWrites } from "../../batchGuard.js";
import { requireHead, selectHead } from "../../journalHead.js";
import type { LibsqlContext } from "../../libsqlContext.js";
import { queryRow } from "../../libsqlRows.js";
import { optimisticWrite } from "../../optimisticWrite.js";
import { authChange } from "./authChange.js";

/** The owner's password hash; undefined when none was set; RowTamperedError when the row fails its MAC. */
export async function readOwnerSecret(ctx: LibsqlContext): Promise<string | undefined> {
  const row = await queryRow<{ encoded: string }>(ctx.client, "SELECT * FROM owner_secret WHERE id = 1");
  if (row === undefined) return undefined;
  if (authenticRow(ctx, OWNER_SECRET_TABLE, row) === undefined) throw RowTamperedError.ownerPassword();
  return row.encoded;
}

/** Replaces the owner's password hash and journals that it changed (never the hash itself), in one batch. */
export function writeOwnerSecret(ctx: LibsqlContext, encoded: string): Promise<void> {
  return optimisticWrite(ctx, "setting the owner password", async () => {
    const head = requireHead(ctx, await selectHead(ctx));
    const now = ctx.clock();
    const write = { guards: [], writes: [sealedUpsert(ctx, OWNER_SECRET_TABLE, { id: 1, encoded, updated_ms: now })] };
    await applyGuarded(ctx.client, "setting the owner password", joinWrites(write, authChange(ctx, head, "owner_password_set", {}, now)));
  });
}
