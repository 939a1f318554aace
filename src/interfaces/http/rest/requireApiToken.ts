import type { MiddlewareHandler } from "hono";
import type { ApiTokenScope } from "../../../store/AccessStore.js";
import { ApiError, errorResponse } from "../apiError.js";
import type { FailureLimiter } from "../failureLimiter.js";
import type { AppDeps, AppEnv } from "../httpDeps.js";
import { SECRET_PREFIX } from "../secretHasher.js";
import type { SecretKind } from "../secretHasher.js";

/** The scope each kind of API token is minted with; a stored scope that disagrees with its hash's kind is refused. */
const SCOPE_OF_KIND: Partial<Record<SecretKind, ApiTokenScope>> = { api: "own", operator: "all", metrics: "metrics" };

function tokenKind(token: string): SecretKind | undefined {
  for (const kind of ["operator", "metrics", "api"] as const) if (token.startsWith(SECRET_PREFIX[kind])) return kind;
  return undefined;
}

/**
 * Guards /v1 with API tokens (`errand token create`): looked up by keyed hash, refused once
 * revoked. OAuth access tokens are not accepted here: they were issued for the MCP resource only.
 * An operator token (prefix errand_op_, `--scope all`) sees every operation, any other only the ones
 * it submitted. The scope comes from the kind the token was hashed under, so a stored row edited to
 * say "all" grants nothing: a row whose scope disagrees with its hash is refused. A metrics token
 * (errand_mt_, `--scope metrics`) passes only where `metricsScope` is set (/metrics). An expired
 * token (`--expires`, its expiry under the row MAC) is refused with a message saying so. Each
 * accepted token's last use is recorded (to the minute) for `errand token list`.
 */
export function requireApiToken(deps: AppDeps, limiter: FailureLimiter, options: { metricsScope?: boolean } = {}): MiddlewareHandler<AppEnv> {
  const clock = deps.clock ?? Date.now;
  const challenge = { "www-authenticate": 'Bearer realm="errand"' };
  return async (c, next) => {
    const address = deps.clientAddress(c);
    const wait = limiter.retryAfterSeconds(address);
    if (wait > 0)
      return errorResponse(
        new ApiError("rate_limited", `Too many failed authentications from this address; retry in ${wait} s.`, { headers: { "retry-after": String(wait) } }),
      );
    const header = c.req.header("authorization");
    if (header === undefined || !/^bearer /i.test(header)) {
      return errorResponse(
        new ApiError("unauthorized", 'Send "Authorization: Bearer <token>" with a token from "errand token create --name NAME".', { headers: challenge }),
      );
    }
    const token = header.slice(7).trim();
    const kind = tokenKind(token);
    const record = kind === undefined ? undefined : await deps.access.readApiToken(deps.hasher.hash(kind, token));
    const invalid = { headers: { "www-authenticate": 'Bearer realm="errand", error="invalid_token"' } };
    if (kind === undefined || record === undefined || record.revokedMs !== null || record.scope !== SCOPE_OF_KIND[kind]) {
      limiter.record(address);
      return errorResponse(
        new ApiError("unauthorized", 'The API token is unknown or revoked; create a new one with "errand token create --name NAME".', invalid),
      );
    }
    const now = clock();
    if (record.expiresMs !== null && now >= record.expiresMs) {
      limiter.record(address);
      return errorResponse(
        new ApiError(
          "unauthorized",
          `The API token ${record.tokenId} ("${record.name}") expired at ${new Date(record.expiresMs).toISOString()}; create a new one with "errand token create --name NAME --expires DURATION".`,
          invalid,
        ),
      );
    }
    if (record.scope === "metrics" && options.metricsScope !== true) {
      return errorResponse(
        new ApiError(
          "unauthorized",
          "This is a metrics token (--scope metrics): it reads /metrics and nothing else. Use an API token made without --scope metrics.",
          { headers: { "www-authenticate": 'Bearer realm="errand", error="insufficient_scope"' } },
        ),
      );
    }
    if (record.lastUsedMs === null || now - record.lastUsedMs >= 60_000) {
      await deps.access.recordApiTokenUse(record.tokenId, now).catch((error: unknown) => deps.logger.error("Recording an API token's last use failed", error));
    }
    const seesAll = record.scope === "all";
    c.set("principal", {
      actor: `api:${record.tokenId}`,
      kind: "api",
      tokenId: record.tokenId,
      scopes: ["tasks"],
      requester: { submitter: `api:${record.tokenId}`, seesAll },
    });
    await next();
    return undefined;
  };
}
