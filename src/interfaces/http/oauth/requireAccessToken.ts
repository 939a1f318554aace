import type { MiddlewareHandler } from "hono";
import type { FailureLimiter } from "../failureLimiter.js";
import type { AppDeps, AppEnv } from "../httpDeps.js";
import { resourceMetadataUrl } from "./metadata.js";
import { RESOURCE_SCOPES, TASKS_SCOPE } from "./scopes.js";

function challenge(deps: AppDeps, error?: { code: string; description: string }): string {
  const parts = [`resource_metadata="${resourceMetadataUrl(deps.settings)}"`, `scope="${RESOURCE_SCOPES.join(" ")}"`];
  if (error !== undefined) parts.unshift(`error="${error.code}"`, `error_description="${error.description}"`);
  return `Bearer ${parts.join(", ")}`;
}

function refuse(deps: AppDeps, status: 401 | 403 | 429, body: Record<string, unknown>, wwwAuthenticate: string | undefined, retryAfter?: number): Response {
  const headers: Record<string, string> = { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" };
  if (wwwAuthenticate !== undefined) headers["www-authenticate"] = wwwAuthenticate;
  if (retryAfter !== undefined) headers["retry-after"] = String(retryAfter);
  return new Response(JSON.stringify(body), { status, headers });
}

/**
 * Guards /mcp with OAuth access tokens: the token must exist (by hash), be unexpired, belong to a
 * live family, carry the "tasks" scope, and have been issued for exactly this MCP resource (RFC
 * 8707; a token for another errand or another URL is refused even though it is genuine). Every 401
 * carries WWW-Authenticate with resource_metadata, which is how a client discovers how to log in.
 */
export function requireAccessToken(deps: AppDeps, limiter: FailureLimiter): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const address = deps.clientAddress(c);
    const wait = limiter.retryAfterSeconds(address);
    if (wait > 0) return refuse(deps, 429, { error: "rate_limited", error_description: "Too many failed authentications from this address." }, undefined, wait);
    const header = c.req.header("authorization");
    if (header === undefined || !/^bearer /i.test(header)) {
      return refuse(deps, 401, { error: "invalid_token", error_description: "Authorization required: connect through OAuth." }, challenge(deps));
    }
    const token = header.slice(7).trim();
    const record = token === "" ? undefined : await deps.access.readToken(deps.hasher.hash("access", token));
    const now = (deps.clock ?? Date.now)();
    let problem: string | undefined;
    if (record === undefined || record.kind !== "access") problem = "The access token is unknown.";
    else if (record.expiresMs <= now) problem = "The access token expired; refresh it.";
    else if (record.revokedMs !== null) problem = "The access token was revoked; authorize again.";
    else if (record.resource !== deps.settings.mcpResource) problem = `The access token was issued for another resource, not ${deps.settings.mcpResource}.`;
    if (problem !== undefined || record === undefined) {
      limiter.record(address);
      const description = problem ?? "The access token is unknown.";
      return refuse(deps, 401, { error: "invalid_token", error_description: description }, challenge(deps, { code: "invalid_token", description }));
    }
    if (!record.scopes.includes(TASKS_SCOPE)) {
      const description = `The token lacks the "${TASKS_SCOPE}" scope.`;
      return refuse(deps, 403, { error: "insufficient_scope", error_description: description }, challenge(deps, { code: "insufficient_scope", description }));
    }
    // The grant is the token family, not the client id: with Client ID Metadata Documents many people share one client id.
    const requester = { submitter: `oauth:${record.familyId}`, seesAll: false };
    c.set("principal", {
      actor: `oauth:${record.clientId}`,
      kind: "oauth",
      clientId: record.clientId,
      familyId: record.familyId,
      scopes: record.scopes,
      requester,
    });
    await next();
    return undefined;
  };
}
