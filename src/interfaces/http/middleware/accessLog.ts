import type { MiddlewareHandler } from "hono";
import type { HttpLogger } from "../httpLogger.js";

/**
 * One log line per HTTP request: method, path (never the query string, which can carry OAuth codes
 * and state), status and duration. Successful liveness and readiness probes are not logged: a probe
 * every few seconds would bury everything else.
 */
export function accessLog(options: { logger: HttpLogger; clock?: () => number }): MiddlewareHandler {
  const clock = options.clock ?? Date.now;
  return async (c, next) => {
    const started = clock();
    try {
      await next();
    } finally {
      const status = c.res.status;
      const path = c.req.path;
      if (!((path === "/healthz" || path === "/readyz") && status < 400)) {
        options.logger.info("request", { method: c.req.method, path: path.slice(0, 200), status, ms: clock() - started });
      }
    }
  };
}
