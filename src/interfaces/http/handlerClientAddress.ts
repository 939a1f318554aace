import type { Context } from "hono";
import type { TrustedProxies } from "./clientAddress.js";
import { addressKey, resolveClientAddress } from "./clientAddress.js";

/**
 * Reads the client's address of a request a fetch handler was given (Deno.serve's `info.remoteAddr`,
 * handed on as `env.remoteAddress`): that peer, or X-Forwarded-For when the peer is a trusted proxy;
 * "unknown" when the host gave none (Val Town gives none, so every client there counts as one).
 */
export function handlerClientAddressReader(trusted: TrustedProxies): (c: Context) => string {
  return (c) => {
    const env: unknown = c.env;
    const peer = typeof env === "object" && env !== null && "remoteAddress" in env && typeof env.remoteAddress === "string" ? env.remoteAddress : undefined;
    if (peer === undefined || peer === "") return "unknown";
    return addressKey(resolveClientAddress(peer, c.req.header("x-forwarded-for"), trusted));
  };
}
