import type { NewTokenFamily, NewTokenPair, OAuthTokenRecord, RotateResult } from "../../../AccessStore.js";
import { isRetriedRefresh } from "../../../refreshRetry.js";
import { authenticToken, joinScopes, toToken, tokenWithFamilySql } from "../../../rows/accessRows.js";
import { OAUTH_FAMILIES_TABLE, OAUTH_TOKENS_TABLE } from "../../../rows/authenticRows.js";
import { rowMacUnchanged, sealedInsert, sealedUpdate } from "../../authenticRowWrite.js";
import type { GuardedWrite } from "../../batchGuard.js";
import { applyGuarded, joinWrites } from "../../batchGuard.js";
import { headIn, requireHead, SELECT_HEAD } from "../../journalHead.js";
import type { LibsqlContext } from "../../libsqlContext.js";
import type { LibsqlResult } from "../../LibsqlClientLike.js";
import { statement } from "../../LibsqlClientLike.js";
import { firstRowIn, rowsIn } from "../../libsqlRows.js";
import { optimisticWrite } from "../../optimisticWrite.js";
import { authChange } from "./authChange.js";

type Joined = Readonly<Record<string, unknown>>;

/** The statement reading a token with its family, both rows whole (rows/accessRows.tokenWithFamilySql). */
export const selectTokenWithFamily = (tokenHash: string) => statement(tokenWithFamilySql("?"), tokenHash);

/** The family's own row inside a token-with-family row (its columns prefixed f_). */
function familyRowOf(joined: Joined): Record<string, unknown> {
  const family: Record<string, unknown> = { family_id: joined["family_id"] };
  for (const column of ["client_id", "scopes", "resource", "generation", "created_ms", "expires_ms", "revoked_ms", "revoked_reason", "mac"])
    family[column] = joined[`f_${column}`];
  return family;
}

/** The token of a token-with-family result as a record, when both rows pass their MACs. */
function tokenIn(ctx: LibsqlContext, result: LibsqlResult | undefined): { token: OAuthTokenRecord; joined: Joined } | undefined {
  const joined = firstRowIn<Joined>(result);
  const row = authenticToken(ctx.sealer, joined, ctx.rowRefusals);
  return row === undefined || joined === undefined ? undefined : { token: toToken(row), joined };
}

export async function readToken(ctx: LibsqlContext, tokenHash: string): Promise<OAuthTokenRecord | undefined> {
  return tokenIn(ctx, await ctx.client.execute(selectTokenWithFamily(tokenHash)))?.token;
}

/** A new family's row (generation 1). */
export function insertFamily(ctx: LibsqlContext, family: NewTokenFamily, now: number): GuardedWrite {
  return {
    guards: [],
    writes: [
      sealedInsert(ctx, OAUTH_FAMILIES_TABLE, {
        family_id: family.familyId,
        client_id: family.clientId,
        scopes: joinScopes(family.scopes),
        resource: family.resource,
        generation: 1,
        created_ms: now,
        expires_ms: family.refreshExpiresMs,
        revoked_ms: null,
        revoked_reason: null,
      }),
    ],
  };
}

/** An access token and a refresh token of one generation of a family. */
export function insertTokenPair(ctx: LibsqlContext, familyId: string, generation: number, pair: NewTokenPair, now: number): GuardedWrite {
  const token = (tokenHash: string, kind: "access" | "refresh", expiresMs: number) =>
    sealedInsert(ctx, OAUTH_TOKENS_TABLE, {
      token_hash: tokenHash,
      family_id: familyId,
      kind,
      generation,
      expires_ms: expiresMs,
      used_ms: null,
      created_ms: now,
    });
  return { guards: [], writes: [token(pair.accessHash, "access", pair.accessExpiresMs), token(pair.refreshHash, "refresh", pair.refreshExpiresMs)] };
}

/**
 * Revokes a family read as `family` (its own row) unless it already was; undefined when there is
 * nothing to do. Revoking only takes authority away, so the row is sealed as revoked whatever it held.
 */
export function revokeFamily(ctx: LibsqlContext, family: Readonly<Record<string, unknown>>, reason: string, now: number): GuardedWrite | undefined {
  if (family["revoked_ms"] !== null && family["revoked_ms"] !== undefined) return undefined;
  return {
    guards: [rowMacUnchanged(OAUTH_FAMILIES_TABLE, family)],
    writes: [sealedUpdate(ctx, OAUTH_FAMILIES_TABLE, family, { revoked_ms: now, revoked_reason: reason })],
  };
}

/**
 * Exchanges a refresh token once. Spent → the family is revoked (someone holds a copy: the legitimate
 * client or a thief, and the server cannot tell which, so both lose it), unless it is the same
 * client retrying within the grace window (refreshRetry.ts). The exchange is guarded on the token's
 * and the family's rows as read, so two exchanges of one token cannot both succeed.
 */
export function rotateRefreshToken(ctx: LibsqlContext, refreshHash: string, next: NewTokenPair, graceMs: number): Promise<RotateResult> {
  return optimisticWrite(ctx, "exchanging a refresh token", async (): Promise<RotateResult> => {
    const [tokenResult, successorResult, headResult] = await ctx.client.batch(
      [selectTokenWithFamily(refreshHash), selectTokenWithFamily(next.refreshHash), SELECT_HEAD],
      "read",
    );
    const now = ctx.clock();
    const read = tokenIn(ctx, tokenResult);
    if (read === undefined || read.token.kind !== "refresh") return { kind: "missing" };
    const { token, joined } = read;
    if (token.revokedMs !== null) return { kind: "revoked" };
    const head = requireHead(ctx, headIn(headResult));
    if (token.usedMs !== null && isRetriedRefresh(token, tokenIn(ctx, successorResult)?.token, graceMs, now)) {
      await applyGuarded(
        ctx.client,
        "exchanging a refresh token",
        authChange(ctx, head, "refresh_retried", { familyId: token.familyId, clientId: token.clientId, generation: token.generation + 1 }, now),
      );
      return { kind: "retried", familyId: token.familyId, generation: token.generation + 1, rotatedMs: token.usedMs };
    }
    const family = familyRowOf(joined);
    if (token.usedMs !== null) {
      const revoke = revokeFamily(ctx, family, "refresh_reuse", now);
      const journaled = authChange(ctx, head, "family_revoked", { familyId: token.familyId, clientId: token.clientId, reason: "refresh_reuse" }, now);
      await applyGuarded(ctx.client, "revoking a token family", revoke === undefined ? journaled : joinWrites(revoke, journaled));
      return { kind: "reused", familyId: token.familyId };
    }
    if (token.expiresMs <= now) return { kind: "expired" };
    const generation = token.generation + 1;
    const spend: GuardedWrite = {
      guards: [rowMacUnchanged(OAUTH_TOKENS_TABLE, joined), rowMacUnchanged(OAUTH_FAMILIES_TABLE, family)],
      writes: [
        sealedUpdate(ctx, OAUTH_TOKENS_TABLE, joined, { used_ms: now }),
        sealedUpdate(ctx, OAUTH_FAMILIES_TABLE, family, { generation, expires_ms: next.refreshExpiresMs }),
      ],
    };
    const journaled = authChange(ctx, head, "tokens_rotated", { familyId: token.familyId, clientId: token.clientId, generation }, now);
    await applyGuarded(ctx.client, "exchanging a refresh token", joinWrites(spend, insertTokenPair(ctx, token.familyId, generation, next, now), journaled));
    return { kind: "rotated", familyId: token.familyId, generation };
  });
}

/** RFC 7009: revokes the token's whole family when the token belongs to the calling client. */
export function revokeTokenFamily(ctx: LibsqlContext, tokenHash: string, clientId: string, reason: string): Promise<boolean> {
  return optimisticWrite(ctx, "revoking a token family", async () => {
    const [tokenResult, headResult] = await ctx.client.batch([selectTokenWithFamily(tokenHash), SELECT_HEAD], "read");
    const read = tokenIn(ctx, tokenResult);
    if (read === undefined || read.token.clientId !== clientId) return false;
    const now = ctx.clock();
    const revoke = revokeFamily(ctx, familyRowOf(read.joined), reason, now);
    if (revoke === undefined) return false;
    await applyGuarded(
      ctx.client,
      "revoking a token family",
      joinWrites(revoke, authChange(ctx, requireHead(ctx, headIn(headResult)), "family_revoked", { familyId: read.token.familyId, clientId, reason }, now)),
    );
    return true;
  });
}

/** Revokes every live family (each sealed as revoked) in one batch, and journals how many. */
export function revokeAllTokenFamilies(ctx: LibsqlContext, reason: string): Promise<number> {
  return optimisticWrite(ctx, "revoking every token family", async () => {
    const [liveResult, headResult] = await ctx.client.batch([statement("SELECT * FROM oauth_families WHERE revoked_ms IS NULL"), SELECT_HEAD], "read");
    const now = ctx.clock();
    const revokes = rowsIn<Record<string, unknown>>(liveResult).flatMap((family) => revokeFamily(ctx, family, reason, now) ?? []);
    if (revokes.length === 0) return 0;
    const journaled = authChange(ctx, requireHead(ctx, headIn(headResult)), "all_families_revoked", { families: revokes.length, reason }, now);
    await applyGuarded(ctx.client, "revoking every token family", joinWrites(...revokes, journaled));
    return revokes.length;
  });
}

/** Forgets codes, tokens and families that can no longer be used, in one batch. */
export async function purgeExpired(ctx: LibsqlContext, beforeMs: number): Promise<number> {
  const results = await ctx.client.batch(
    [
      statement("DELETE FROM oauth_tokens WHERE expires_ms < ?", beforeMs),
      statement("DELETE FROM oauth_codes WHERE expires_ms < ?", beforeMs),
      statement(
        "DELETE FROM oauth_families WHERE expires_ms < ? AND NOT EXISTS (SELECT 1 FROM oauth_tokens t WHERE t.family_id = oauth_families.family_id)",
        beforeMs,
      ),
    ],
    "write",
  );
  return results.reduce((sum, result) => sum + result.rowsAffected, 0);
}
