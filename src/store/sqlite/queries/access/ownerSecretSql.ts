import { OWNER_SECRET_TABLE } from "../../../rows/authenticRows.js";
import { RowTamperedError } from "../../../storeErrors.js";
import { authenticRow, sealRow } from "../../authenticTableSql.js";
import type { SqliteContext } from "../../sqliteContext.js";
import { journalAuthChange } from "./authEvent.js";

/** The owner's password hash; undefined when none was set; RowTamperedError when the row fails its MAC. */
export function selectOwnerSecret(ctx: SqliteContext): string | undefined {
  const row = ctx.sql("SELECT * FROM owner_secret WHERE id = 1").get() as { encoded: string } | undefined;
  if (row === undefined) return undefined;
  if (authenticRow(ctx, OWNER_SECRET_TABLE, row) === undefined) throw RowTamperedError.ownerPassword();
  return row.encoded;
}

/** Replaces the owner's password hash and journals that it changed (never the hash itself). */
export function upsertOwnerSecret(ctx: SqliteContext, encoded: string): void {
  const now = ctx.clock();
  ctx
    .sql(
      "INSERT INTO owner_secret (id, encoded, updated_ms) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET encoded = excluded.encoded, updated_ms = excluded.updated_ms",
    )
    .run(encoded, now);
  sealRow(ctx, OWNER_SECRET_TABLE, [1]);
  journalAuthChange(ctx, "owner_password_set", {}, now);
}
