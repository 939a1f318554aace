import { flagOption, stringOption } from "../commandContext.js";
import type { Command, CommandContext } from "../commandContext.js";
import { EXIT } from "../exitCodes.js";
import { printEnvelope } from "../jsonEnvelope.js";
import { printFailure } from "../operationOutput.js";
import { printErr, printOut } from "../output.js";
import { UsageError } from "../usageError.js";

const TOKEN_NAME = /^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/;

export const tokenCommand: Command = {
  name: "token",
  summary: "create, list or revoke REST API tokens (and revoke every OAuth grant)",
  options: { name: { type: "string" }, scope: { type: "string" }, json: { type: "boolean" }, "all-oauth": { type: "boolean" } },
  maxPositionals: 2,
  run: runToken,
  help: `errand token create --name NAME [--scope own|all] | list [--json] | revoke ID|NAME | revoke --all-oauth
  create   makes a bearer token for the REST API (/v1) and prints it alone on stdout, once; only a
           hash of it is kept. Its id and name go to stderr. --scope own (the default): the token
           sees and controls only the operations it submitted. --scope all: an operator token
           (errand_op_...) that sees and controls every operation, as the owner does.
  list     shows every API token's id, name, scope, creation time and whether it is revoked (never the token);
           a token whose stored row fails its MAC (changed without the key) is marked and refused.
           --json: the envelope of docs/CLI.md with data.tokens.
  revoke   revokes one API token by id or name. With --all-oauth it instead revokes every OAuth
           grant (ChatGPT and any other MCP client must connect and be approved again).`,
};

async function runToken(ctx: CommandContext): Promise<number> {
  const action = ctx.positionals[0];
  if (action !== "create" && action !== "list" && action !== "revoke") throw new UsageError('say "create", "list" or "revoke"');
  const json = flagOption(ctx, "json");
  const name = stringOption(ctx, "name");
  if (action === "create" && (name === undefined || !TOKEN_NAME.test(name))) throw new UsageError("create needs --name NAME (1 to 64 letters, digits, space, dot, dash or underscore)");
  if (action !== "create" && name !== undefined) throw new UsageError("--name belongs to create");
  const scope = stringOption(ctx, "scope");
  if (scope !== undefined && action !== "create") throw new UsageError("--scope belongs to create");
  if (scope !== undefined && scope !== "own" && scope !== "all") throw new UsageError('--scope is "own" (the operations the token submits; the default) or "all" (every operation: an operator token)');
  const target = ctx.positionals[1];
  if (action === "revoke" && (target === undefined) === !flagOption(ctx, "all-oauth")) throw new UsageError("revoke needs either a token id or name, or --all-oauth");
  if (action !== "revoke" && (target !== undefined || flagOption(ctx, "all-oauth"))) throw new UsageError(`${action} takes no other argument`);

  const { withAccess } = await import("../openAccess.js");
  return withAccess(ctx, async ({ access, hasher }) => {
    if (action === "create") {
      // The scope is bound to the token by the kind it is minted and hashed as (rest/requireApiToken).
      const kind = scope === "all" ? "operator" : "api";
      const token = hasher.mint(kind);
      const tokenId = `tok_${crypto.randomUUID().replace(/-/g, "").slice(0, 16)}`;
      await access.createApiToken({ tokenId, name: name ?? "", tokenHash: hasher.hash(kind, token), scope: scope === "all" ? "all" : "own" });
      printOut(token);
      printErr(`created API token ${tokenId} "${name ?? ""}" (scope ${scope === "all" ? "all: it sees every operation" : "own: it sees only the operations it submits"}); it is shown only this once. Use it as: Authorization: Bearer <token>`);
      return EXIT.pass;
    }
    if (action === "list") {
      const tokens = await access.listApiTokens();
      if (json) printEnvelope({ ok: true, status: "ok", data: { tokens: tokens.map((t) => ({ tokenId: t.tokenId, name: t.name, scope: t.scope, createdAt: new Date(t.createdMs).toISOString(), revokedAt: t.revokedMs === null ? null : new Date(t.revokedMs).toISOString(), authentic: t.authentic })) } });
      else if (tokens.length === 0) printOut("no API tokens");
      else for (const t of tokens) printOut(`${t.tokenId}  ${t.name}  scope ${t.scope}  created ${new Date(t.createdMs).toISOString()}${t.revokedMs === null ? "" : `  revoked ${new Date(t.revokedMs).toISOString()}`}${t.authentic ? "" : "  FAILS ITS MAC (changed without the key; refused)"}`);
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
  }, action === "list" ? "read" : "write");
}
