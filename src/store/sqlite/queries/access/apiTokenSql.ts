import type { ApiTokenRecord, NewApiToken } from "../../../AccessStore.js";
import type { ApiTokenRow } from "../../../rows/accessRows.js";
import { toApiToken } from "../../../rows/accessRows.js";
import { API_TOKENS_TABLE } from "../../../rows/authenticRows.js";
import { authenticRow, sealRow } from "../../authenticTableSql.js";
import type { SqliteContext } from "../../sqliteContext.js";
import { journalAuthChange } from "./authEvent.js";

export function insertApiToken(ctx: SqliteContext, token: NewApiToken): void {
  const now = ctx.clock();
  const scope = token.scope ?? "own";
  const expiresMs = token.expiresMs ?? null;
  ctx
    .sql("INSERT INTO api_tokens (token_id, name, token_hash, scope, created_ms, revoked_ms, expires_ms) VALUES (?, ?, ?, ?, ?, NULL, ?)")
    .run(token.tokenId, token.name, token.tokenHash, scope, now, expiresMs);
  sealRow(ctx, API_TOKENS_TABLE, [token.tokenId]);
  journalAuthChange(ctx, "api_token_created", { tokenId: token.tokenId, name: token.name, scope, expiresMs }, now);
}

/** A use within a minute of the recorded one is not written: last use is for the owner's list, not an audit trail. */
export const API_TOKEN_USE_RESOLUTION_MS = 60_000;

export function recordApiTokenUse(ctx: SqliteContext, tokenId: string, atMs: number): void {
  ctx
    .sql("UPDATE api_tokens SET last_used_ms = ? WHERE token_id = ? AND (last_used_ms IS NULL OR last_used_ms <= ?)")
    .run(atMs, tokenId, atMs - API_TOKEN_USE_RESOLUTION_MS);
}

/** Every token, each with whether its row passes its MAC (one that fails is listed, and grants nothing). */
export function listApiTokens(ctx: SqliteContext): ApiTokenRecord[] {
  return (ctx.sql("SELECT * FROM api_tokens ORDER BY created_ms, token_id").all() as ApiTokenRow[]).map((row) =>
    toApiToken(row, authenticRow(ctx, API_TOKENS_TABLE, row) !== undefined),
  );
}

/** The token with this hash when its row passes its MAC (its revocation included); undefined otherwise. */
export function selectApiTokenByHash(ctx: SqliteContext, tokenHash: string): ApiTokenRecord | undefined {
  const row = authenticRow(ctx, API_TOKENS_TABLE, ctx.sql("SELECT * FROM api_tokens WHERE token_hash = ?").get(tokenHash) as ApiTokenRow | undefined);
  return row === undefined ? undefined : toApiToken(row, true);
}

function selectLiveApiToken(ctx: SqliteContext, idOrName: string): ApiTokenRecord | undefined {
  const row = ctx
    .sql("SELECT * FROM api_tokens WHERE (token_id = ? OR name = ?) AND revoked_ms IS NULL ORDER BY token_id = ? DESC, created_ms LIMIT 1")
    .get(idOrName, idOrName, idOrName) as ApiTokenRow | undefined;
  return row === undefined ? undefined : toApiToken(row, authenticRow(ctx, API_TOKENS_TABLE, row) !== undefined);
}

/** Revoking only takes authority away, so a row that failed its MAC is revoked (and MAC'd as revoked) too. */
function markApiTokenRevoked(ctx: SqliteContext, tokenId: string, now: number): void {
  ctx.sql("UPDATE api_tokens SET revoked_ms = ? WHERE token_id = ?").run(now, tokenId);
  sealRow(ctx, API_TOKENS_TABLE, [tokenId]);
}

/** Revokes the live token with this id (or, failing that, this name); journals it. */
export function revokeApiToken(ctx: SqliteContext, idOrName: string): ApiTokenRecord | undefined {
  const token = selectLiveApiToken(ctx, idOrName);
  if (token === undefined) return undefined;
  const now = ctx.clock();
  markApiTokenRevoked(ctx, token.tokenId, now);
  journalAuthChange(ctx, "api_token_revoked", { tokenId: token.tokenId, name: token.name }, now);
  return { ...token, revokedMs: now, authentic: true };
}
