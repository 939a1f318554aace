import { HOUR } from "../../config/units.js";
import type { TrustedProxies } from "./clientAddress.js";
import type { HttpLogger } from "./httpLogger.js";

/** Headers a reverse proxy writes to say who its client is. errand reads only X-Forwarded-For, and only from a trusted proxy. */
export const FORWARDED_HEADERS = ["x-forwarded-for", "forwarded", "x-real-ip"] as const;

/** After the first warning, at most one more per this interval, with the count in between: a misconfigured proxy sends them on every request. */
export const FORWARDED_WARNING_EVERY_MS = 1 * HOUR;

/**
 * Forwarded headers errand could not use: from a peer ERRAND_TRUSTED_PROXIES does not list
 * ("untrusted_peer"), or from a trusted proxy that names the client only in Forwarded or X-Real-IP
 * ("no_x_forwarded_for"; errand reads X-Forwarded-For alone).
 */
export interface UntrustedForwarding {
  problem: "untrusted_peer" | "no_x_forwarded_for";
  /** The socket peer that sent them (the latest one). */
  peer: string;
  /** The header's name as errand reads it (lower case). */
  header: string;
  firstSeenMs: number;
  lastSeenMs: number;
  /** Requests with such headers from untrusted peers since the server started. */
  requests: number;
  /** ERRAND_TRUSTED_PROXIES as the server read it. */
  trustedProxies: string[];
}

export interface ForwardedHeaderWatch {
  /** Looks at one request's peer and headers; warns (rate-limited) when an untrusted peer sent forwarded headers. */
  observe(peer: string | undefined, headers: Headers): void;
}

/**
 * Notices a proxy the operator forgot to trust (its forwarded headers are ignored: anyone could
 * write them), or a trusted one that does not send X-Forwarded-For: either way every client behind
 * it shares its address and one owner-password lockout. The first sighting is logged and recorded
 * at once; later ones at most once an hour.
 */
export function createForwardedHeaderWatch(options: {
  trusted: TrustedProxies;
  logger: HttpLogger;
  record?: (seen: UntrustedForwarding) => void;
  clock?: () => number;
}): ForwardedHeaderWatch {
  const clock = options.clock ?? Date.now;
  let seen: UntrustedForwarding | undefined;
  let lastWarnedMs: number | undefined;
  return {
    observe(peer, headers) {
      if (peer === undefined) return;
      const trusted = options.trusted.has(peer);
      if (trusted && headers.has("x-forwarded-for")) return;
      const header = FORWARDED_HEADERS.find((name) => headers.has(name));
      if (header === undefined) return;
      const problem = trusted ? "no_x_forwarded_for" : "untrusted_peer";
      const now = clock();
      seen = {
        problem,
        peer,
        header,
        firstSeenMs: seen?.firstSeenMs ?? now,
        lastSeenMs: now,
        requests: (seen?.requests ?? 0) + 1,
        trustedProxies: [...options.trusted.entries],
      };
      if (lastWarnedMs !== undefined && now - lastWarnedMs < FORWARDED_WARNING_EVERY_MS) return;
      lastWarnedMs = now;
      options.logger.warn(
        problem === "untrusted_peer"
          ? `Forwarded headers (${header}) came from ${peer}, which ERRAND_TRUSTED_PROXIES does not list: errand ignores them, so every client behind that peer shares its address and one owner-password lockout. If it is your reverse proxy or tunnel, add its address to ERRAND_TRUSTED_PROXIES and restart errand serve.`
          : `The trusted proxy ${peer} names the client in ${header} but sends no X-Forwarded-For, the only header errand reads: every client behind it shares its address and one owner-password lockout. Make the proxy send X-Forwarded-For (nginx: proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for).`,
        { peer, header, problem, requests: seen.requests, trustedProxies: seen.trustedProxies.join(",") || "none" },
      );
      try {
        options.record?.(seen);
      } catch (error) {
        options.logger.error("Recording the untrusted forwarded headers for errand doctor failed", error);
      }
    },
  };
}
