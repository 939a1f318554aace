import type { MiddlewareHandler } from "hono";
import { ApiError, errorResponse } from "../apiError.js";

/**
 * Refuses requests whose Host header is not one errand serves (DNS rebinding: a hostile page whose
 * name resolves to 127.0.0.1 reaches a loopback server with its own name in Host). `allowed` holds
 * lower-case host[:port] values; null turns the check off.
 */
export function hostGuard(options: { allowed: ReadonlySet<string> | null }): MiddlewareHandler {
  return async (c, next) => {
    if (options.allowed !== null) {
      const host = (c.req.header("host") ?? "").toLowerCase();
      if (!options.allowed.has(host)) {
        return errorResponse(new ApiError("forbidden_host", "This server does not answer for that host name. Use the URL errand serve printed."));
      }
    }
    await next();
    return undefined;
  };
}
