import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import type { HttpLogger } from "../httpLogger.js";
import { requestIdFor, withRequestId } from "../observability/requestContext.js";

/** Probe and scrape paths: answered often by machines, so logged at debug unless they fail. */
const ROUTINE_PATHS = new Set(["/healthz", "/readyz", "/metrics"]);

/** What the access log reports about each answered request, for the request-duration histogram. */
export type RequestObserver = (request: { method: string; route: string; status: number; seconds: number }) => void;

/**
 * One log line per HTTP request: method, path (never the query string, which can carry OAuth codes
 * and state), the route pattern it matched, status and duration, under a request id that every log
 * line written while the request is handled carries and that the answer returns as X-Request-Id (a
 * caller's own X-Request-Id is kept when it is a plain token). Successful probes and scrapes
 * (/healthz, /readyz, /metrics) are logged at debug: a probe every few seconds would bury the rest.
 */
export function accessLog(options: { logger: HttpLogger; clock?: () => number; observe?: RequestObserver }): MiddlewareHandler {
  const clock = options.clock ?? Date.now;
  return async (c, next) => {
    const started = clock();
    const requestId = requestIdFor(c.req.header("x-request-id"));
    await withRequestId(requestId, async () => {
      try {
        await next();
      } finally {
        c.res.headers.set("x-request-id", requestId);
        const status = c.res.status;
        const path = c.req.path;
        const route = matchedRoute(routePath(c));
        const ms = clock() - started;
        options.observe?.({ method: c.req.method, route, status, seconds: ms / 1000 });
        const fields = { method: c.req.method, path: path.slice(0, 200), route, status, ms };
        if (ROUTINE_PATHS.has(path) && status < 400) options.logger.debug("request", fields);
        else options.logger.info("request", fields);
      }
    });
  };
}

/**
 * The route pattern that answered ("/v1/operations/:id"), never the raw path, so a metric label
 * has a bounded set of values; a request no route answered (only middleware or the not-found
 * handler ran) is "unmatched".
 */
function matchedRoute(pattern: string): string {
  return pattern === "" || pattern === "*" || pattern === "/*" ? "unmatched" : pattern.slice(0, 100);
}
