import type { NewTokenFamily, NewTokenPair, OAuthTokenRecord, RotateResult } from "../../../AccessStore.js";
import { authenticToken, joinScopes, toToken, tokenWithFamilySql } from "../../../rows/accessRows.js";
import { OAUTH_FAMILIES_TABLE, OAUTH_TOKENS_TABLE } from "../../../rows/authenticRows.js";
import { isRetriedRefresh } from "../../../refreshRetry.js";
import { sealRow } from "../../authenticTableSql.js";
import type { SqliteContext } from "../../sqliteContext.js";
import { journalAuthChange } from "./authEvent.js";

/** A token with its family's client, scopes, resource and revocation, when both rows pass their MACs. */
export function selectToken(ctx: SqliteContext, tokenHash: string): OAuthTokenRecord | undefined {
  const row = authenticToken(ctx.sealer, ctx.sql(tokenWithFamilySql("?")).get(tokenHash) as Record<string, unknown> | undefined, ctx.rowRefusals);
  return row === undefined ? undefined : toToken(row);
}

export function insertFamily(ctx: SqliteContext, family: NewTokenFamily, now: number): void {
  ctx
    .sql(
      `INSERT INTO oauth_families (family_id, client_id, scopes, resource, generation, created_ms, expires_ms, revoked_ms, revoked_reason)
       VALUES (?, ?, ?, ?, 1, ?, ?, NULL, NULL)`,
    )
    .run(family.familyId, family.clientId, joinScopes(family.scopes), family.resource, now, family.refreshExpiresMs);
  sealRow(ctx, OAUTH_FAMILIES_TABLE, [family.familyId]);
}

function insertToken(
  ctx: SqliteContext,
  tokenHash: string,
  familyId: string,
  kind: "access" | "refresh",
  generation: number,
  expiresMs: number,
  now: number,
): void {
  ctx
    .sql("INSERT INTO oauth_tokens (token_hash, family_id, kind, generation, expires_ms, used_ms, created_ms) VALUES (?, ?, ?, ?, ?, NULL, ?)")
    .run(tokenHash, familyId, kind, generation, expiresMs, now);
  sealRow(ctx, OAUTH_TOKENS_TABLE, [tokenHash]);
}

export function insertTokenPair(ctx: SqliteContext, familyId: string, generation: number, pair: NewTokenPair, now: number): void {
  insertToken(ctx, pair.accessHash, familyId, "access", generation, pair.accessExpiresMs, now);
  insertToken(ctx, pair.refreshHash, familyId, "refresh", generation, pair.refreshExpiresMs, now);
}

/** Spends a refresh token whose row (and family's) was just read and found authentic. */
function markTokenUsed(ctx: SqliteContext, tokenHash: string, now: number): void {
  ctx.sql("UPDATE oauth_tokens SET used_ms = ? WHERE token_hash = ?").run(now, tokenHash);
  sealRow(ctx, OAUTH_TOKENS_TABLE, [tokenHash]);
}

/** Moves a family whose row was just read and found authentic to its next generation. */
function advanceFamily(ctx: SqliteContext, familyId: string, generation: number, expiresMs: number): void {
  ctx.sql("UPDATE oauth_families SET generation = ?, expires_ms = ? WHERE family_id = ?").run(generation, expiresMs, familyId);
  sealRow(ctx, OAUTH_FAMILIES_TABLE, [familyId]);
}

/**
 * Revokes a live family; false when it was already revoked or does not exist. Revoking only takes
 * authority away, so the row is sealed as revoked whatever it held.
 */
export function revokeFamily(ctx: SqliteContext, familyId: string, reason: string, now: number): boolean {
  const changed =
    ctx.sql("UPDATE oauth_families SET revoked_ms = ?, revoked_reason = ? WHERE family_id = ? AND revoked_ms IS NULL").run(now, reason, familyId).changes > 0;
  if (changed) sealRow(ctx, OAUTH_FAMILIES_TABLE, [familyId]);
  return changed;
}

/**
 * Exchanges a refresh token once. Spent → the family is revoked (someone holds a copy: the
 * legitimate client or a thief, and the server cannot tell which, so both lose it).
 */
export function rotateRefresh(ctx: SqliteContext, refreshHash: string, next: NewTokenPair, graceMs: number): RotateResult {
  const now = ctx.clock();
  const token = selectToken(ctx, refreshHash);
  if (token === undefined || token.kind !== "refresh") return { kind: "missing" };
  if (token.revokedMs !== null) return { kind: "revoked" };
  if (token.usedMs !== null && isRetriedRefresh(token, selectToken(ctx, next.refreshHash), graceMs, now)) {
    journalAuthChange(ctx, "refresh_retried", { familyId: token.familyId, clientId: token.clientId, generation: token.generation + 1 }, now);
    return { kind: "retried", familyId: token.familyId, generation: token.generation + 1, rotatedMs: token.usedMs };
  }
  if (token.usedMs !== null) {
    revokeFamily(ctx, token.familyId, "refresh_reuse", now);
    journalAuthChange(ctx, "family_revoked", { familyId: token.familyId, clientId: token.clientId, reason: "refresh_reuse" }, now);
    return { kind: "reused", familyId: token.familyId };
  }
  if (token.expiresMs <= now) return { kind: "expired" };
  const generation = token.generation + 1;
  markTokenUsed(ctx, refreshHash, now);
  insertTokenPair(ctx, token.familyId, generation, next, now);
  advanceFamily(ctx, token.familyId, generation, next.refreshExpiresMs);
  journalAuthChange(ctx, "tokens_rotated", { familyId: token.familyId, clientId: token.clientId, generation }, now);
  return { kind: "rotated", familyId: token.familyId, generation };
}

/** RFC 7009: revokes the token's whole family when the token belongs to the calling client. */
export function revokeByToken(ctx: SqliteContext, tokenHash: string, clientId: string, reason: string): boolean {
  const token = selectToken(ctx, tokenHash);
  if (token === undefined || token.clientId !== clientId) return false;
  const now = ctx.clock();
  const revoked = revokeFamily(ctx, token.familyId, reason, now);
  if (revoked) journalAuthChange(ctx, "family_revoked", { familyId: token.familyId, clientId, reason }, now);
  return revoked;
}

export function revokeAllFamilies(ctx: SqliteContext, reason: string): number {
  const now = ctx.clock();
  const live = ctx.sql("SELECT family_id FROM oauth_families WHERE revoked_ms IS NULL").all() as { family_id: string }[];
  const changed = live.filter((f) => revokeFamily(ctx, f.family_id, reason, now)).length;
  if (changed > 0) journalAuthChange(ctx, "all_families_revoked", { families: changed, reason }, now);
  return changed;
}

function deleteExpiredTokens(ctx: SqliteContext, beforeMs: number): number {
  return ctx.sql("DELETE FROM oauth_tokens WHERE expires_ms < ?").run(beforeMs).changes;
}

function deleteExpiredCodes(ctx: SqliteContext, beforeMs: number): number {
  return ctx.sql("DELETE FROM oauth_codes WHERE expires_ms < ?").run(beforeMs).changes;
}

function deleteExpiredFamilies(ctx: SqliteContext, beforeMs: number): number {
  return ctx
    .sql("DELETE FROM oauth_families WHERE expires_ms < ? AND NOT EXISTS (SELECT 1 FROM oauth_tokens t WHERE t.family_id = oauth_families.family_id)")
    .run(beforeMs).changes;
}

/** Forgets codes, tokens and families that can no longer be used. */
export function purgeExpired(ctx: SqliteContext, beforeMs: number): number {
  return deleteExpiredTokens(ctx, beforeMs) + deleteExpiredCodes(ctx, beforeMs) + deleteExpiredFamilies(ctx, beforeMs);
}
