import type { MiddlewareHandler } from "hono";

/**
 * Headers every answer carries: nothing is cached (tokens, receipts and consent pages are all
 * private), types are not sniffed, no referrer leaks a code or state, and nothing may frame errand.
 */
export function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const headers = c.res.headers;
    if (!headers.has("cache-control")) headers.set("cache-control", "no-store");
    headers.set("x-content-type-options", "nosniff");
    if (!headers.has("referrer-policy")) headers.set("referrer-policy", "no-referrer");
    headers.set("x-frame-options", "DENY");
    if (!headers.has("content-security-policy")) headers.set("content-security-policy", "default-src 'none'; frame-ancestors 'none'");
  };
}
