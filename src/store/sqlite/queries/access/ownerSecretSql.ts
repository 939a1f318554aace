import type { SqliteContext } from "../../sqliteContext.js";
import { journalAuthChange } from "./authEvent.js";

export function selectOwnerSecret(ctx: SqliteContext): string | undefined {
  const row = ctx.sql("SELECT encoded FROM owner_secret WHERE id = 1").get() as { encoded: string } | undefined;
  return row?.encoded;
}

/** Replaces the owner's password hash and journals that it changed (never the hash itself). */
export function upsertOwnerSecret(ctx: SqliteContext, encoded: string): void {
  const now = ctx.clock();
  ctx
    .sql("INSERT INTO owner_secret (id, encoded, updated_ms) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET encoded = excluded.encoded, updated_ms = excluded.updated_ms")
    .run(encoded, now);
  journalAuthChange(ctx, "owner_password_set", {}, now);
}
