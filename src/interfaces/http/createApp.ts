import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { ApiError, errorResponse } from "./apiError.js";
import { createFailureLimiter } from "./failureLimiter.js";
import type { AppDeps, AppEnv } from "./httpDeps.js";
import { mcpEndpoint, mcpMethodNotAllowed } from "./mcp/mcpEndpoint.js";
import { hostGuard } from "./middleware/hostGuard.js";
import { securityHeaders } from "./middleware/securityHeaders.js";
import { answerConsent, authorize } from "./oauth/authorizeRoutes.js";
import { authorizationServerMetadata, protectedResourceMetadata } from "./oauth/metadata.js";
import { OAuthError, oauthErrorResponse } from "./oauth/oauthError.js";
import { PendingConsents } from "./oauth/pendingConsents.js";
import { registerClient } from "./oauth/registerClient.js";
import { requireAccessToken } from "./oauth/requireAccessToken.js";
import { revokeEndpoint, tokenEndpoint } from "./oauth/tokenEndpoint.js";
import { restRoutes } from "./rest/restRoutes.js";

/**
 * The whole HTTP surface as a web-standard app (`app.fetch(request)`): public /healthz and OAuth
 * discovery and endpoints; /mcp behind OAuth access tokens; /v1 behind API tokens. Host header
 * checked first, security headers on every answer, errors answered without stacks or paths.
 */
export function createApp(deps: AppDeps): Hono<AppEnv> {
  const clock = deps.clock ?? Date.now;
  const { failures } = deps.settings;
  const authFailures = createFailureLimiter({ max: failures.max, windowMs: failures.windowMs, clock });
  const registrations = createFailureLimiter({ max: failures.registrations, windowMs: failures.registrationWindowMs, clock });
  const pending = new PendingConsents(clock);

  const app = new Hono<AppEnv>();
  app.use(securityHeaders());
  app.use(hostGuard({ allowed: deps.settings.allowedHosts }));

  app.get("/healthz", (c) => c.json({ ok: true }));

  const prm = (c: { json: (body: unknown) => Response }) => c.json(protectedResourceMetadata(deps.settings));
  app.get("/.well-known/oauth-protected-resource", prm);
  app.get("/.well-known/oauth-protected-resource/mcp", prm);
  app.get("/.well-known/oauth-authorization-server", (c) => c.json(authorizationServerMetadata(deps.settings)));
  app.post("/register", (c) => registerClient(c, deps, registrations));
  app.get("/authorize", (c) => authorize(c, deps, pending));
  app.post("/consent", (c) => answerConsent(c, deps, pending));
  app.post("/token", (c) => tokenEndpoint(c, deps, authFailures));
  app.post("/revoke", (c) => revokeEndpoint(c, deps, authFailures));

  app.use("/mcp", requireAccessToken(deps, authFailures));
  app.post("/mcp", mcpEndpoint(deps));
  app.on(["GET", "DELETE", "PUT", "PATCH"], "/mcp", () => mcpMethodNotAllowed());

  app.route("/v1", restRoutes(deps, authFailures));

  app.notFound(() => errorResponse(new ApiError("not_found", "No endpoint here. MCP is at /mcp; the REST API is described at /v1/openapi.json.")));
  app.onError((error) => {
    if (error instanceof ApiError) return errorResponse(error);
    if (error instanceof OAuthError) return oauthErrorResponse(error);
    if (error instanceof HTTPException && error.status < 500) return errorResponse(new ApiError("invalid_type", "The request was malformed."));
    deps.logger.error("Request failed unexpectedly", error);
    return errorResponse(new ApiError("internal_error", "errand failed unexpectedly; the operator's log has the details."));
  });
  return app;
}
