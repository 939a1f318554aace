import type { AuthorizationCodeRecord, NewTokenFamily, RedeemResult } from "../../../AccessStore.js";
import type { CodeRow } from "../../../rows/accessRows.js";
import { joinScopes, toCode } from "../../../rows/accessRows.js";
import { OAUTH_CODES_TABLE } from "../../../rows/authenticRows.js";
import { authenticRow, sealRow } from "../../authenticTableSql.js";
import type { SqliteContext } from "../../sqliteContext.js";
import { journalAuthChange } from "./authEvent.js";
import { markClientGranted } from "./oauthClientSql.js";
import { insertFamily, insertTokenPair, revokeFamily } from "./oauthTokenSql.js";

/** Stores the code of an approved consent, marks its client approved and journals the approval. */
export function insertCode(ctx: SqliteContext, code: AuthorizationCodeRecord): void {
  const now = ctx.clock();
  ctx
    .sql(
      `INSERT INTO oauth_codes (code_hash, client_id, redirect_uri, code_challenge, scopes, resource, expires_ms, used_ms, family_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL)`,
    )
    .run(code.codeHash, code.clientId, code.redirectUri, code.codeChallenge, joinScopes(code.scopes), code.resource, code.expiresMs);
  sealRow(ctx, OAUTH_CODES_TABLE, [code.codeHash]);
  markClientGranted(ctx, code.clientId, now);
  journalAuthChange(ctx, "consent_approved", { clientId: code.clientId, scopes: code.scopes, resource: code.resource }, now);
}

/** The code's row when it passes its MAC (client, redirect URI, challenge, scopes, expiry and use are under it). */
function selectCodeRow(ctx: SqliteContext, codeHash: string): CodeRow | undefined {
  return authenticRow(ctx, OAUTH_CODES_TABLE, ctx.sql("SELECT * FROM oauth_codes WHERE code_hash = ?").get(codeHash) as CodeRow | undefined);
}

export function selectCode(ctx: SqliteContext, codeHash: string): AuthorizationCodeRecord | undefined {
  const row = selectCodeRow(ctx, codeHash);
  return row === undefined ? undefined : toCode(row);
}

function markCodeUsed(ctx: SqliteContext, codeHash: string, familyId: string, now: number): void {
  ctx.sql("UPDATE oauth_codes SET used_ms = ?, family_id = ? WHERE code_hash = ?").run(now, familyId, codeHash);
  sealRow(ctx, OAUTH_CODES_TABLE, [codeHash]);
}

/** Single use: the first redemption starts a token family; any later one revokes that family. */
export function redeemCode(ctx: SqliteContext, codeHash: string, tokens: NewTokenFamily): RedeemResult {
  const now = ctx.clock();
  const row = selectCodeRow(ctx, codeHash);
  if (row === undefined) return { kind: "missing" };
  if (row.used_ms !== null) {
    const family = row.family_id;
    if (family !== null && revokeFamily(ctx, family, "code_reuse", now))
      journalAuthChange(ctx, "family_revoked", { familyId: family, reason: "code_reuse" }, now);
    return { kind: "reused", revokedFamily: family };
  }
  if (row.expires_ms <= now) return { kind: "expired" };
  markCodeUsed(ctx, codeHash, tokens.familyId, now);
  insertFamily(ctx, tokens, now);
  insertTokenPair(ctx, tokens.familyId, 1, tokens, now);
  journalAuthChange(ctx, "tokens_issued", { clientId: tokens.clientId, familyId: tokens.familyId, scopes: tokens.scopes }, now);
  return { kind: "redeemed" };
}
