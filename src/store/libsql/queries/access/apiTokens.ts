import type { ApiTokenRecord, NewApiToken } from "../../../AccessStore.js";
import type { ApiTokenRow } from "../../../rows/accessRows.js";
import { toApiToken } from "../../../rows/accessRows.js";
import { API_TOKENS_TABLE } from "../../../rows/authenticRows.js";
import { authenticRow, rowMacUnchanged, sealedInsert, sealedUpdate } from "../../authenticRowWrite.js";
import { applyGuarded, joinWrites } from "../../batchGuard.js";
import { headIn, requireHead, SELECT_HEAD, selectHead } from "../../journalHead.js";
import type { LibsqlContext } from "../../libsqlContext.js";
import { statement } from "../../LibsqlClientLike.js";
import { firstRowIn, queryRow, queryRows } from "../../libsqlRows.js";
import { optimisticWrite } from "../../optimisticWrite.js";
import { authChange } from "./authChange.js";

/** A use within a minute of the recorded one is not written: last use is for the owner's list, not an audit trail. */
const API_TOKEN_USE_RESOLUTION_MS = 60_000;

/** Stores a new token's row (sealed) and journals it, in one batch. */
export function createApiToken(ctx: LibsqlContext, token: NewApiToken): Promise<void> {
  return optimisticWrite(ctx, `creating API token ${token.name}`, async () => {
    const head = requireHead(ctx, await selectHead(ctx));
    const now = ctx.clock();
    const scope = token.scope ?? "own";
    const expiresMs = token.expiresMs ?? null;
    const insert = {
      guards: [],
      writes: [
        sealedInsert(ctx, API_TOKENS_TABLE, {
          token_id: token.tokenId,
          name: token.name,
          token_hash: token.tokenHash,
          scope,
          created_ms: now,
          revoked_ms: null,
          expires_ms: expiresMs,
        }),
      ],
    };
    await applyGuarded(
      ctx.client,
      `creating API token ${token.name}`,
      joinWrites(insert, authChange(ctx, head, "api_token_created", { tokenId: token.tokenId, name: token.name, scope, expiresMs }, now)),
    );
  });
}

/** Records a use for the owner's list (the last use is not under the MAC: it grants nothing). */
export async function recordApiTokenUse(ctx: LibsqlContext, tokenId: string, atMs: number): Promise<void> {
  await ctx.client.execute(
    statement(
      "UPDATE api_tokens SET last_used_ms = ? WHERE token_id = ? AND (last_used_ms IS NULL OR last_used_ms <= ?)",
      atMs,
      tokenId,
      atMs - API_TOKEN_USE_RESOLUTION_MS,
    ),
  );
}

/** Every token, each with whether its row passes its MAC (one that fails is listed, and grants nothing). */
export async function listApiTokens(ctx: LibsqlContext): Promise<ApiTokenRecord[]> {
  const rows = await queryRows<ApiTokenRow>(ctx.client, "SELECT * FROM api_tokens ORDER BY created_ms, token_id");
  return rows.map((row) => toApiToken(row, authenticRow(ctx, API_TOKENS_TABLE, row) !== undefined));
}

/** The token with this hash when its row passes its MAC (its revocation included); undefined otherwise. */
export async function readApiToken(ctx: LibsqlContext, tokenHash: string): Promise<ApiTokenRecord | undefined> {
  const row = authenticRow(ctx, API_TOKENS_TABLE, await queryRow<ApiTokenRow>(ctx.client, "SELECT * FROM api_tokens WHERE token_hash = ?", tokenHash));
  return row === undefined ? undefined : toApiToken(row, true);
}

/**
 * Revokes the live token with this id (or, failing that, this name) and journals it. Revoking only
 * takes authority away, so a row that failed its MAC is revoked (and sealed as revoked) too.
 */
export function revokeApiToken(ctx: LibsqlContext, idOrName: string): Promise<ApiTokenRecord | undefined> {
  return optimisticWrite(ctx, `revoking API token ${idOrName}`, async () => {
    const [tokenResult, headResult] = await ctx.client.batch(
      [
        statement(
          "SELECT * FROM api_tokens WHERE (token_id = ? OR name = ?) AND revoked_ms IS NULL ORDER BY token_id = ? DESC, created_ms LIMIT 1",
          idOrName,
          idOrName,
          idOrName,
        ),
        SELECT_HEAD,
      ],
      "read",
    );
    const row = firstRowIn<ApiTokenRow & Record<string, unknown>>(tokenResult);
    if (row === undefined) return undefined;
    const token = toApiToken(row, authenticRow(ctx, API_TOKENS_TABLE, row) !== undefined);
    const now = ctx.clock();
    const revoke = { guards: [rowMacUnchanged(API_TOKENS_TABLE, row)], writes: [sealedUpdate(ctx, API_TOKENS_TABLE, row, { revoked_ms: now })] };
    await applyGuarded(
      ctx.client,
      `revoking API token ${idOrName}`,
      joinWrites(revoke, authChange(ctx, requireHead(ctx, headIn(headResult)), "api_token_revoked", { tokenId: token.tokenId, name: token.name }, now)),
    );
    return { ...token, revokedMs: now, authentic: true };
  });
}
