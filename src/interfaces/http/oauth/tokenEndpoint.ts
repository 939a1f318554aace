import type { Context } from "hono";
import type { NewTokenPair, OAuthClientRecord } from "../../../store/AccessStore.js";
import type { FailureLimiter } from "../failureLimiter.js";
import type { AppDeps } from "../httpDeps.js";
import { readBoundedBody } from "../readBody.js";
import { pkceChallenge, randomId } from "../secretHasher.js";
import { authenticateClient } from "./authenticateClient.js";
import { OAuthError } from "./oauthError.js";
import { matchesResource } from "./resourceIndicator.js";

const PKCE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** Reads an OAuth form post (bounded), refusing other content types. */
export async function readOAuthForm(c: Context, deps: AppDeps): Promise<URLSearchParams> {
  if (!(c.req.header("content-type") ?? "").startsWith("application/x-www-form-urlencoded")) {
    throw new OAuthError("invalid_request", "Send the parameters as application/x-www-form-urlencoded.");
  }
  const body = await readBoundedBody(c.req.raw, deps.settings.limits.formBytes);
  if (!body.ok) throw new OAuthError("invalid_request", "The request is too large.", 413);
  return new URLSearchParams(body.text);
}

/** Refuses an address that failed too often, and counts this failure when `failed` runs. */
export async function guardFailures<T>(deps: AppDeps, c: Context, limiter: FailureLimiter, step: () => Promise<T>): Promise<T> {
  const address = deps.clientAddress(c);
  const wait = limiter.retryAfterSeconds(address);
  if (wait > 0)
    throw new OAuthError("slow_down", "Too many failed requests from this address; wait before trying again.", 429, { "retry-after": String(wait) });
  try {
    return await step();
  } catch (error) {
    if (error instanceof OAuthError && (error.error === "invalid_client" || error.error === "invalid_grant")) limiter.record(address);
    throw error;
  }
}

/**
 * POST /token: authorization_code (with PKCE S256, the registered redirect and the bound resource)
 * and refresh_token (rotating: every refresh token works once; presented again within the grace
 * window, before its successor was used, it gets the same pair back). The answer is never cached.
 */
export async function tokenEndpoint(c: Context, deps: AppDeps, limiter: FailureLimiter): Promise<Response> {
  return guardFailures(deps, c, limiter, async () => {
    const form = await readOAuthForm(c, deps);
    const client = await authenticateClient(deps, form, c.req.header("authorization"));
    const grant = form.get("grant_type");
    if (grant === "authorization_code") return tokenResponse(await exchangeCode(deps, client, form));
    if (grant === "refresh_token") return tokenResponse(await refresh(deps, client, form));
    throw new OAuthError("unsupported_grant_type", "grant_type must be authorization_code or refresh_token.");
  });
}

interface IssuedTokens {
  access: string;
  refresh: string;
  scopes: string[];
  expiresInSeconds: number;
}

/**
 * A new access and refresh token: random after a code exchange; after a refresh, derived from the
 * refresh token presented, so a client that retries a refresh whose answer it lost is given the
 * same pair again (within the grace window) while nothing but hashes is stored.
 */
function mintPair(deps: AppDeps, presentedRefresh?: string): { access: string; refresh: string; pair: NewTokenPair } {
  const now = (deps.clock ?? Date.now)();
  const access = presentedRefresh === undefined ? deps.hasher.mint("access") : deps.hasher.derive("access", presentedRefresh);
  const refresh = presentedRefresh === undefined ? deps.hasher.mint("refresh") : deps.hasher.derive("refresh", presentedRefresh);
  return {
    access,
    refresh,
    pair: {
      accessHash: deps.hasher.hash("access", access),
      accessExpiresMs: now + deps.settings.tokens.accessMs,
      refreshHash: deps.hasher.hash("refresh", refresh),
      refreshExpiresMs: now + deps.settings.tokens.refreshMs,
    },
  };
}

async function exchangeCode(deps: AppDeps, client: OAuthClientRecord, form: URLSearchParams): Promise<IssuedTokens> {
  const code = form.get("code") ?? "";
  const codeHash = deps.hasher.hash("code", code);
  const record = await deps.access.readAuthorizationCode(codeHash);
  if (record === undefined || record.clientId !== client.clientId)
    throw new OAuthError("invalid_grant", "The authorization code is unknown, expired or was issued to another client.");
  const redirectUri = form.get("redirect_uri");
  if (redirectUri !== null && redirectUri !== record.redirectUri)
    throw new OAuthError("invalid_grant", "redirect_uri differs from the one the code was issued for.");
  const verifier = form.get("code_verifier") ?? "";
  if (!PKCE_VERIFIER.test(verifier) || pkceChallenge(verifier) !== record.codeChallenge)
    throw new OAuthError("invalid_grant", "The PKCE code_verifier does not match the code_challenge.");
  const resource = form.get("resource");
  if (resource !== null && (!matchesResource(resource, deps.settings) || !matchesResource(resource, { mcpResource: record.resource }))) {
    throw new OAuthError("invalid_target", `This code grants access to ${record.resource} only.`);
  }
  const { access, refresh, pair } = mintPair(deps);
  const result = await deps.access.redeemAuthorizationCode(codeHash, {
    ...pair,
    familyId: `fam_${randomId(12)}`,
    clientId: client.clientId,
    scopes: record.scopes,
    resource: record.resource,
  });
  if (result.kind === "reused") {
    deps.logger.warn("An authorization code was presented twice; the tokens it gave are revoked", {
      clientId: client.clientId,
      familyId: result.revokedFamily,
    });
  }
  if (result.kind !== "redeemed") throw new OAuthError("invalid_grant", "The authorization code is unknown, expired or already used.");
  return { access, refresh, scopes: record.scopes, expiresInSeconds: Math.floor(deps.settings.tokens.accessMs / 1000) };
}

async function refresh(deps: AppDeps, client: OAuthClientRecord, form: URLSearchParams): Promise<IssuedTokens> {
  const presented = form.get("refresh_token") ?? "";
  const refreshHash = deps.hasher.hash("refresh", presented);
  const record = await deps.access.readToken(refreshHash);
  if (record === undefined || record.kind !== "refresh" || record.clientId !== client.clientId)
    throw new OAuthError("invalid_grant", "The refresh token is unknown or was issued to another client.");
  const resource = form.get("resource");
  if (resource !== null && (!matchesResource(resource, deps.settings) || !matchesResource(resource, { mcpResource: record.resource }))) {
    throw new OAuthError("invalid_target", `This refresh token grants access to ${record.resource} only.`);
  }
  const scope = form.get("scope");
  if (
    scope !== null &&
    !scope
      .split(" ")
      .filter((s) => s !== "")
      .every((s) => record.scopes.includes(s))
  ) {
    throw new OAuthError("invalid_scope", `A refresh may only ask for scopes already granted (${record.scopes.join(" ")}).`);
  }
  const { access, refresh: nextRefresh, pair } = mintPair(deps, presented);
  const result = await deps.access.rotateRefreshToken(refreshHash, pair, deps.settings.tokens.refreshReuseGraceMs);
  switch (result.kind) {
    case "rotated":
      return { access, refresh: nextRefresh, scopes: record.scopes, expiresInSeconds: Math.floor(deps.settings.tokens.accessMs / 1000) };
    case "retried": {
      deps.logger.info("A refresh was retried within the grace window; the pair it created stands", { clientId: client.clientId, familyId: result.familyId });
      const left = deps.settings.tokens.accessMs - ((deps.clock ?? Date.now)() - result.rotatedMs);
      return { access, refresh: nextRefresh, scopes: record.scopes, expiresInSeconds: Math.max(1, Math.floor(left / 1000)) };
    }
    case "reused":
      deps.logger.warn("A spent refresh token was presented again; its whole authorization is revoked", {
        clientId: client.clientId,
        familyId: result.familyId,
      });
      throw new OAuthError("invalid_grant", "This refresh token was already used. Every token of this authorization is now revoked; authorize again.");
    case "revoked":
      throw new OAuthError("invalid_grant", "This authorization was revoked; authorize again.");
    default:
      throw new OAuthError("invalid_grant", "The refresh token is unknown or expired; authorize again.");
  }
}

function tokenResponse(tokens: IssuedTokens): Response {
  return new Response(
    JSON.stringify({
      access_token: tokens.access,
      token_type: "Bearer",
      expires_in: tokens.expiresInSeconds,
      refresh_token: tokens.refresh,
      scope: tokens.scopes.join(" "),
    }),
    { status: 200, headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", pragma: "no-cache" } },
  );
}

/**
 * POST /revoke (RFC 7009): revokes the token's whole authorization (its family) when it belongs to
 * the calling client. Answers 200 whatever the token was, so the endpoint reveals nothing.
 */
export async function revokeEndpoint(c: Context, deps: AppDeps, limiter: FailureLimiter): Promise<Response> {
  return guardFailures(deps, c, limiter, async () => {
    const form = await readOAuthForm(c, deps);
    const client = await authenticateClient(deps, form, c.req.header("authorization"));
    const token = form.get("token") ?? "";
    const hint = form.get("token_type_hint");
    const kinds = hint === "refresh_token" ? (["refresh", "access"] as const) : (["access", "refresh"] as const);
    for (const kind of kinds) {
      if (await deps.access.revokeTokenFamily(deps.hasher.hash(kind, token), client.clientId, "revoked_by_client")) {
        deps.logger.info("A client revoked its tokens", { clientId: client.clientId });
        break;
      }
    }
    return new Response("{}", { status: 200, headers: { "content-type": "application/json", "cache-control": "no-store" } });
  });
}
