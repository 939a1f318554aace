import type { AuthorizationCodeRecord, NewTokenFamily, RedeemResult } from "../../../AccessStore.js";
import type { ClientRow, CodeRow } from "../../../rows/accessRows.js";
import { joinScopes, toCode } from "../../../rows/accessRows.js";
import { OAUTH_CODES_TABLE } from "../../../rows/authenticRows.js";
import { authenticRow, rowMacUnchanged, sealedInsert, sealedUpdate } from "../../authenticRowWrite.js";
import { applyGuarded, joinWrites } from "../../batchGuard.js";
import { headIn, requireHead, SELECT_HEAD } from "../../journalHead.js";
import type { LibsqlContext } from "../../libsqlContext.js";
import { statement } from "../../LibsqlClientLike.js";
import { firstRowIn, queryRow } from "../../libsqlRows.js";
import { optimisticWrite } from "../../optimisticWrite.js";
import { authChange } from "./authChange.js";
import { markClientGranted, SELECT_CLIENT } from "./oauthClients.js";
import { insertFamily, insertTokenPair, revokeFamily } from "./oauthTokens.js";

const SELECT_CODE = "SELECT * FROM oauth_codes WHERE code_hash = ?";

/** Stores the code of an approved consent, marks its client approved and journals the approval, in one batch. */
export function saveAuthorizationCode(ctx: LibsqlContext, code: AuthorizationCodeRecord): Promise<void> {
  return optimisticWrite(ctx, `saving an authorization code for ${code.clientId}`, async () => {
    const [clientResult, headResult] = await ctx.client.batch([statement(SELECT_CLIENT, code.clientId), SELECT_HEAD], "read");
    const now = ctx.clock();
    const insert = {
      guards: [],
      writes: [
        sealedInsert(ctx, OAUTH_CODES_TABLE, {
          code_hash: code.codeHash,
          client_id: code.clientId,
          redirect_uri: code.redirectUri,
          code_challenge: code.codeChallenge,
          scopes: joinScopes(code.scopes),
          resource: code.resource,
          expires_ms: code.expiresMs,
          used_ms: null,
          family_id: null,
        }),
      ],
    };
    const journaled = authChange(
      ctx,
      requireHead(ctx, headIn(headResult)),
      "consent_approved",
      { clientId: code.clientId, scopes: code.scopes, resource: code.resource },
      now,
    );
    await applyGuarded(
      ctx.client,
      `saving an authorization code for ${code.clientId}`,
      joinWrites(insert, markClientGranted(ctx, firstRowIn<ClientRow>(clientResult), now), journaled),
    );
  });
}

/** The code when its row passes its MAC (client, redirect URI, challenge, scopes, expiry and use are under it). */
export async function readAuthorizationCode(ctx: LibsqlContext, codeHash: string): Promise<AuthorizationCodeRecord | undefined> {
  const row = authenticRow(ctx, OAUTH_CODES_TABLE, await queryRow<CodeRow>(ctx.client, SELECT_CODE, codeHash));
  return row === undefined ? undefined : toCode(row);
}

/**
 * Single use: the first redemption starts a token family; any later one revokes that family. The
 * redemption is guarded on the code's row as read, so two redemptions at once cannot both start one.
 */
export function redeemAuthorizationCode(ctx: LibsqlContext, codeHash: string, tokens: NewTokenFamily): Promise<RedeemResult> {
  return optimisticWrite(ctx, "redeeming an authorization code", async (): Promise<RedeemResult> => {
    const [codeResult, headResult] = await ctx.client.batch([statement(SELECT_CODE, codeHash), SELECT_HEAD], "read");
    const row = authenticRow(ctx, OAUTH_CODES_TABLE, firstRowIn<CodeRow & { mac: string | null }>(codeResult));
    if (row === undefined) return { kind: "missing" };
    const now = ctx.clock();
    const head = requireHead(ctx, headIn(headResult));
    if (row.used_ms !== null) {
      const familyId = row.family_id;
      if (familyId === null) return { kind: "reused", revokedFamily: null };
      const family = await queryRow<Record<string, unknown>>(ctx.client, "SELECT * FROM oauth_families WHERE family_id = ?", familyId);
      const revoke = family === undefined ? undefined : revokeFamily(ctx, family, "code_reuse", now);
      if (revoke !== undefined)
        await applyGuarded(
          ctx.client,
          "revoking a token family",
          joinWrites(revoke, authChange(ctx, head, "family_revoked", { familyId, reason: "code_reuse" }, now)),
        );
      return { kind: "reused", revokedFamily: familyId };
    }
    if (row.expires_ms <= now) return { kind: "expired" };
    const spend = {
      guards: [rowMacUnchanged(OAUTH_CODES_TABLE, row)],
      writes: [sealedUpdate(ctx, OAUTH_CODES_TABLE, row, { used_ms: now, family_id: tokens.familyId })],
    };
    const journaled = authChange(ctx, head, "tokens_issued", { clientId: tokens.clientId, familyId: tokens.familyId, scopes: tokens.scopes }, now);
    await applyGuarded(
      ctx.client,
      "redeeming an authorization code",
      joinWrites(spend, insertFamily(ctx, tokens, now), insertTokenPair(ctx, tokens.familyId, 1, tokens, now), journaled),
    );
    return { kind: "redeemed" };
  });
}
