import type { MiddlewareHandler } from "hono";
import { ApiError, errorResponse } from "../apiError.js";
import type { FailureLimiter } from "../failureLimiter.js";
import type { AppDeps, AppEnv } from "../httpDeps.js";
import { SECRET_PREFIX } from "../secretHasher.js";

/**
 * Guards /v1 with API tokens (`errand token create`): looked up by keyed hash, refused once
 * revoked. OAuth access tokens are not accepted here: they were issued for the MCP resource only.
 * An operator token (prefix errand_op_, `--scope all`) sees every operation, any other only the ones
 * it submitted. The scope comes from the kind the token was hashed under, so a stored row edited to
 * say "all" grants nothing: a row whose scope disagrees with its hash is refused.
 */
export function requireApiToken(deps: AppDeps, limiter: FailureLimiter): MiddlewareHandler<AppEnv> {
  const challenge = { "www-authenticate": 'Bearer realm="errand"' };
  return async (c, next) => {
    const address = deps.clientAddress(c);
    const wait = limiter.retryAfterSeconds(address);
    if (wait > 0) return errorResponse(new ApiError("rate_limited", `Too many failed authentications from this address; retry in ${wait} s.`, { headers: { "retry-after": String(wait) } }));
    const header = c.req.header("authorization");
    if (header === undefined || !/^bearer /i.test(header)) {
      return errorResponse(new ApiError("unauthorized", 'Send "Authorization: Bearer <token>" with a token from "errand token create --name NAME".', { headers: challenge }));
    }
    const token = header.slice(7).trim();
    const kind = token.startsWith(SECRET_PREFIX.operator) ? "operator" : token.startsWith(SECRET_PREFIX.api) ? "api" : undefined;
    const record = kind === undefined ? undefined : await deps.access.readApiToken(deps.hasher.hash(kind, token));
    const seesAll = kind === "operator";
    if (record === undefined || record.revokedMs !== null || (record.scope === "all") !== seesAll) {
      limiter.record(address);
      return errorResponse(new ApiError("unauthorized", "The API token is unknown or revoked; create a new one with \"errand token create --name NAME\".", { headers: { "www-authenticate": 'Bearer realm="errand", error="invalid_token"' } }));
    }
    c.set("principal", { actor: `api:${record.tokenId}`, kind: "api", tokenId: record.tokenId, scopes: ["tasks"], requester: { submitter: `api:${record.tokenId}`, seesAll } });
    await next();
    return undefined;
  };
}
