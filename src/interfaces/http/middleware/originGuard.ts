import type { MiddlewareHandler } from "hono";
import { ApiError, errorResponse } from "../apiError.js";

/**
 * The Streamable HTTP transport's Origin rule: a request that carries an Origin header must come
 * from errand's own origin or one the operator listed (ERRAND_MCP_ALLOWED_ORIGINS), else 403. A
 * request without Origin (a server-side client such as ChatGPT's connector) is not a browser page
 * and passes to the token check. Runs before authentication, so a hostile page learns nothing.
 */
export function originGuard(options: { allowed: readonly string[] }): MiddlewareHandler {
  const allowed = new Set(options.allowed.map((origin) => origin.toLowerCase()));
  return async (c, next) => {
    const origin = c.req.header("origin");
    if (origin !== undefined && !allowed.has(origin.toLowerCase())) {
      return errorResponse(
        new ApiError(
          "forbidden_origin",
          "This endpoint does not accept requests from that Origin. An operator can list a browser-based client's origin in ERRAND_MCP_ALLOWED_ORIGINS.",
        ),
      );
    }
    await next();
    return undefined;
  };
}
