import { reportRowRefusals } from "./reportRowRefusals.js";
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { ApiError, errorResponse } from "./apiError.js";
import { apiErrorFrom } from "./apiErrorFrom.js";
import { countingFailures } from "./failureCounting.js";
import { createFailureLimiter } from "./failureLimiter.js";
import type { AppDeps, AppEnv } from "./httpDeps.js";
import { mcpEndpoint, mcpMethodNotAllowed } from "./mcp/mcpEndpoint.js";
import { accessLog } from "./middleware/accessLog.js";
import { hostGuard } from "./middleware/hostGuard.js";
import { originGuard } from "./middleware/originGuard.js";
import { securityHeaders } from "./middleware/securityHeaders.js";
import { answerConsent, authorize } from "./oauth/authorizeRoutes.js";
import { authorizationServerMetadata, protectedResourceMetadata } from "./oauth/metadata.js";
import { OAuthError, oauthErrorResponse } from "./oauth/oauthError.js";
import { PendingConsents } from "./oauth/pendingConsents.js";
import { registerClient } from "./oauth/registerClient.js";
import { requireAccessToken } from "./oauth/requireAccessToken.js";
import { revokeEndpoint, tokenEndpoint } from "./oauth/tokenEndpoint.js";
import { requireApiToken } from "./rest/requireApiToken.js";
import { ownerRoutes } from "./owner/ownerRoutes.js";
import { restRoutes } from "./rest/restRoutes.js";

/**
 * The whole HTTP surface as a web-standard app (`app.fetch(request)`): /healthz for any Host (a
 * liveness probe by container IP); then the Host check for everything else: /readyz, OAuth
 * discovery and endpoints, /mcp behind OAuth access tokens, /v1 and /metrics behind API tokens.
 * One access-log line per request, security headers on every answer, errors answered without
 * stacks or paths.
 */
export function createApp(deps: AppDeps): Hono<AppEnv> {
  const clock = deps.clock ?? Date.now;
  const { failures } = deps.settings;
  const authFailures = createFailureLimiter({ max: failures.max, windowMs: failures.windowMs, clock });
  const counted = (endpoint: string) =>
    countingFailures(authFailures, deps.metrics === undefined ? undefined : () => deps.metrics?.recordAuthFailure(endpoint));
  const registrations = createFailureLimiter({ max: failures.registrations, windowMs: failures.registrationWindowMs, clock });
  const pending = new PendingConsents(clock);

  const app = new Hono<AppEnv>();
  app.use(securityHeaders());
  app.use(accessLog({ logger: deps.logger, clock, ...(deps.metrics === undefined ? {} : { observe: (request) => deps.metrics?.recordRequest(request) }) }));
  app.use(reportRowRefusals(deps));
  // Liveness answers whatever the Host header says: it reveals nothing and probes use the container IP.
  app.get("/healthz", (c) => c.json({ ok: true }));
  app.use(hostGuard({ allowed: deps.settings.allowedHosts }));

  app.get("/readyz", async (c) => {
    const report = deps.readiness === undefined ? { ready: true, checks: [] } : await deps.readiness();
    return c.json(report, report.ready ? 200 : 503);
  });
  app.get("/metrics", requireApiToken(deps, counted("metrics"), { metricsScope: true }), async (c) => {
    if (deps.metrics === undefined) throw new ApiError("not_found", "Metrics are not enabled in this server.");
    const { contentType, body } = await deps.metrics.render();
    return c.body(body, 200, { "content-type": contentType, "cache-control": "no-store" });
  });

  const prm = (c: { json: (body: unknown) => Response }) => c.json(protectedResourceMetadata(deps.settings));
  app.get("/.well-known/oauth-protected-resource", prm);
  app.get("/.well-known/oauth-protected-resource/mcp", prm);
  app.get("/.well-known/oauth-authorization-server", (c) => c.json(authorizationServerMetadata(deps.settings, deps.clientMetadata !== undefined)));
  app.post("/register", (c) => registerClient(c, deps, registrations));
  app.get("/authorize", (c) => authorize(c, deps, pending));
  app.post("/consent", (c) => answerConsent(c, deps, pending));
  app.post("/token", (c) => tokenEndpoint(c, deps, counted("token")));
  app.post("/revoke", (c) => revokeEndpoint(c, deps, counted("token")));

  app.use("/mcp", originGuard({ allowed: [deps.settings.publicOrigin, ...deps.settings.mcpAllowedOrigins] }));
  app.use("/mcp", requireAccessToken(deps, counted("mcp")));
  app.post("/mcp", mcpEndpoint(deps));
  app.on(["GET", "DELETE", "PUT", "PATCH"], "/mcp", () => mcpMethodNotAllowed());

  app.route("/owner", ownerRoutes(deps));
  app.route("/v1", restRoutes(deps, counted("v1")));

  app.notFound(() => errorResponse(new ApiError("not_found", "No endpoint here. MCP is at /mcp; the REST API is described at /v1/openapi.json.")));
  app.onError((error) => {
    if (error instanceof OAuthError) return oauthErrorResponse(error);
    if (error instanceof HTTPException && error.status < 500) return errorResponse(new ApiError("invalid_type", "The request was malformed."));
    const answer = apiErrorFrom(error);
    if (answer === null || answer.status >= 500) deps.logger.error("Request failed", error);
    return errorResponse(answer ?? new ApiError("internal_error", "errand failed unexpectedly; the operator's log has the details."));
  });
  return app;
}
