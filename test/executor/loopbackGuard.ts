import type { NetworkGuard } from "../../src/executor/networkGuard.js";

/**
 * A stand-in network policy for executor tests: only the listed loopback origins are reachable,
 * everything else is refused with ip_blocked, as the real policy would refuse private addresses.
 */
export function loopbackGuard(allowedOrigins: string[]): NetworkGuard {
  const check = (url: string) => {
    let origin: string;
    try {
      origin = new URL(url).origin;
    } catch {
      return { allowed: false, code: "url_unparseable", reason: "unparseable" };
    }
    return allowedOrigins.includes(origin)
      ? { allowed: true, code: "allowed", reason: "allowed" }
      : { allowed: false, code: "ip_blocked", reason: `${origin} is a private address` };
  };
  const guard: NetworkGuard = {
    forTask: () => guard,
    checkRequest: check,
    checkAllowedHosts: () => ({ allowed: true, code: "ok", reason: "test guard" }),
    preflight: (url) => {
      const v = check(url);
      const host = (() => {
        try {
          return new URL(url).hostname;
        } catch {
          return "";
        }
      })();
      return Promise.resolve({
        url,
        host,
        verdict: v.allowed ? "allow" : "block",
        code: v.code,
        reason: v.reason,
        resolver: "static",
        addresses: [],
        href: v.allowed ? new URL(url).href : null,
      });
    },
  };
  return guard;
}
