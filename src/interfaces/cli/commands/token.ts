import { parseDuration } from "../../../config/parseDuration.js";
import { DAY, MINUTE } from "../../../config/units.js";
import type { ApiTokenRecord, ApiTokenScope } from "../../../store/AccessStore.js";
import { flagOption, stringOption } from "../commandContext.js";
import type { Command, CommandContext } from "../commandContext.js";
import { EXIT } from "../exitCodes.js";
import { printEnvelope } from "../jsonEnvelope.js";
import { printFailure } from "../operationOutput.js";
import { printErr, printOut } from "../output.js";
import { UsageError } from "../usageError.js";

const TOKEN_NAME = /^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/;

/** --expires bounds: at least a minute, at most ten years. */
const EXPIRY_MIN_MS = MINUTE;
const EXPIRY_MAX_MS = 3650 * DAY;

/** What each scope's token sees, as create and list say it. */
const SCOPE_WORDS: Record<ApiTokenScope, string> = {
  own: "own: it sees only the operations it submits",
  all: "all: it sees every operation",
  metrics: "metrics: it reads /metrics and nothing else",
};

/** The envelope's view of a token (never the token itself). */
function tokenView(t: ApiTokenRecord): Record<string, unknown> {
  const at = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return {
    tokenId: t.tokenId,
    name: t.name,
    scope: t.scope,
    createdAt: at(t.createdMs),
    expiresAt: at(t.expiresMs),
    lastUsedAt: at(t.lastUsedMs),
    revokedAt: at(t.revokedMs),
    authentic: t.authentic,
  };
}

export const tokenCommand: Command = {
  name: "token",
  summary: "create, list or revoke REST API tokens (and revoke every OAuth grant)",
  options: { name: { type: "string" }, scope: { type: "string" }, expires: { type: "string" }, json: { type: "boolean" }, "all-oauth": { type: "boolean" } },
  maxPositionals: 2,
  run: runToken,
  help: `errand token create --name NAME [--scope own|all|metrics] [--expires DURATION] [--json] | list [--json] | revoke ID|NAME | revoke --all-oauth
  create   makes a bearer token for the REST API (/v1) and prints it alone on stdout, once; only a
           hash of it is kept. Its id and name go to stderr. --scope own (the default): the token
           sees and controls only the operations it submitted. --scope all: an operator token
           (errand_op_...) that sees and controls every operation, as the owner does. --scope
           metrics: a scraper's token (errand_mt_...) that reads /metrics and nothing else.
           --expires 90d (s, m, h, d or w; a minute to ten years): it stops working then (401
           saying it expired); without it, it works until revoked. --json: the envelope of
           docs/CLI.md with the token in data.token.
  list     shows every API token's id, name, scope, creation, expiry and last use (to the minute)
           and whether it is revoked (never the token); a token whose stored row fails its MAC
           (changed without the key) is marked and refused. --json: the envelope with data.tokens.
  revoke   revokes one API token by id or name. With --all-oauth it instead revokes every OAuth
           grant (ChatGPT and any other MCP client must connect and be approved again).`,
};

async function runToken(ctx: CommandContext): Promise<number> {
  const action = ctx.positionals[0];
  if (action !== "create" && action !== "list" && action !== "revoke") throw new UsageError('say "create", "list" or "revoke"');
  const json = flagOption(ctx, "json");
  const name = stringOption(ctx, "name");
  if (action === "create" && (name === undefined || !TOKEN_NAME.test(name)))
    throw new UsageError("create needs --name NAME (1 to 64 letters, digits, space, dot, dash or underscore)");
  if (action !== "create" && name !== undefined) throw new UsageError("--name belongs to create");
  const scope = stringOption(ctx, "scope");
  if (scope !== undefined && action !== "create") throw new UsageError("--scope belongs to create");
  if (scope !== undefined && scope !== "own" && scope !== "all" && scope !== "metrics")
    throw new UsageError(
      '--scope is "own" (the operations the token submits; the default), "all" (every operation: an operator token) or "metrics" (/metrics only)',
    );
  const expires = stringOption(ctx, "expires");
  if (expires !== undefined && action !== "create") throw new UsageError("--expires belongs to create");
  const lifetimeMs = expires === undefined ? undefined : parseDuration(expires);
  if (expires !== undefined && (lifetimeMs === undefined || lifetimeMs < EXPIRY_MIN_MS || lifetimeMs > EXPIRY_MAX_MS)) {
    throw new UsageError(
      `--expires is a duration from 1m to 3650d written as a whole number and one unit (s, m, h, d, w), e.g. 90d; not "${expires.slice(0, 20)}"`,
    );
  }
  const target = ctx.positionals[1];
  if (action === "revoke" && (target === undefined) === !flagOption(ctx, "all-oauth"))
    throw new UsageError("revoke needs either a token id or name, or --all-oauth");
  if (action !== "revoke" && (target !== undefined || flagOption(ctx, "all-oauth"))) throw new UsageError(`${action} takes no other argument`);

  const { withAccess } = await import("../openAccess.js");
  return withAccess(
    ctx,
    async ({ access, hasher }) => {
      if (action === "create") {
        // The scope is bound to the token by the kind it is minted and hashed as (rest/requireApiToken).
        const chosen: ApiTokenScope = scope === "all" || scope === "metrics" ? scope : "own";
        const kind = chosen === "all" ? "operator" : chosen === "metrics" ? "metrics" : "api";
        const token = hasher.mint(kind);
        const tokenId = `tok_${crypto.randomUUID().replace(/-/g, "").slice(0, 16)}`;
        const expiresMs = lifetimeMs === undefined ? null : Date.now() + lifetimeMs;
        await access.createApiToken({ tokenId, name: name ?? "", tokenHash: hasher.hash(kind, token), scope: chosen, expiresMs });
        const expiry = expiresMs === null ? "it does not expire" : `it expires at ${new Date(expiresMs).toISOString()}`;
        if (json)
          printEnvelope({
            ok: true,
            status: "created",
            data: { token, tokenId, name: name ?? "", scope: chosen, expiresAt: expiresMs === null ? null : new Date(expiresMs).toISOString() },
          });
        else printOut(token);
        printErr(
          `created API token ${tokenId} "${name ?? ""}" (scope ${SCOPE_WORDS[chosen]}; ${expiry}); it is shown only this once. Use it as: Authorization: Bearer <token>`,
        );
        return EXIT.pass;
      }
      if (action === "list") {
        const tokens = await access.listApiTokens();
        const now = Date.now();
        if (json) printEnvelope({ ok: true, status: "ok", data: { tokens: tokens.map(tokenView) } });
        else if (tokens.length === 0) printOut("no API tokens");
        else {
          for (const t of tokens) {
            const expiry = t.expiresMs === null ? "" : `  ${t.expiresMs <= now ? "expired" : "expires"} ${new Date(t.expiresMs).toISOString()}`;
            const lastUse = `  last used ${t.lastUsedMs === null ? "never" : new Date(t.lastUsedMs).toISOString()}`;
            printOut(
              `${t.tokenId}  ${t.name}  scope ${t.scope}  created ${new Date(t.createdMs).toISOString()}${expiry}${lastUse}${t.revokedMs === null ? "" : `  revoked ${new Date(t.revokedMs).toISOString()}`}${t.authentic ? "" : "  FAILS ITS MAC (changed without the key; refused)"}`,
            );
          }
        }
        return EXIT.pass;
      }
      if (target === undefined) {
        const families = await access.revokeAllTokenFamilies("revoked_by_owner");
        if (json) printEnvelope({ ok: true, status: "revoked", data: { oauthGrants: families } });
        else printOut(`revoked ${families} OAuth grant(s); clients must connect again`);
        return EXIT.pass;
      }
      const revoked = await access.revokeApiToken(target);
      if (revoked === undefined) return printFailure({ code: "not_found", message: `No live API token has the id or name "${target}".` }, json);
      if (json) printEnvelope({ ok: true, status: "revoked", data: { tokenId: revoked.tokenId, name: revoked.name } });
      else printOut(`revoked API token ${revoked.tokenId} "${revoked.name}"`);
      return EXIT.pass;
    },
    action === "list" ? "read" : "write",
  );
}
