import { originMatchesSites } from "../secrets/secretSite.js";
import { SecretPattern } from "./secretPattern.js";

/** A secret typed in this browser context: from then on it may travel only to its own sites. */
interface ArmedSecret {
  name: string;
  sites: readonly string[];
  pattern: SecretPattern;
}

/** What a request would carry: its URL, header names and values, and body (when it has one). */
export interface OutgoingRequest {
  url: string;
  headers?: Record<string, string>;
  body?: Buffer | string | null;
}

/**
 * The per-context egress rule for typed secrets. A secret is armed just before it is typed; from
 * then on every request of the context (and every WebSocket message) whose URL, headers or body
 * carries it, in any spelling SecretPattern knows, is refused unless the request's origin is one
 * of that secret's sites. Requests that carry no armed secret are not this guard's business.
 */
export class SecretEgressGuard {
  private readonly armed: ArmedSecret[] = [];

  /** Arms a secret; `compiled` is its pattern when the caller already has one (Redactor.patternOf). */
  arm(secret: { name: string; sites: readonly string[]; value: string }, compiled?: SecretPattern): void {
    if (this.armed.some((entry) => entry.name === secret.name)) return;
    this.armed.push({ name: secret.name, sites: secret.sites, pattern: compiled ?? new SecretPattern(secret.value) });
  }

  get active(): boolean {
    return this.armed.length > 0;
  }

  /** The first armed secret this request carries toward an origin it is not bound to, or null. */
  leak(request: OutgoingRequest): string | null {
    for (const secret of this.armed) {
      if (originMatchesSites(request.url, secret.sites)) continue;
      if (carries(secret.pattern, request)) return secret.name;
    }
    return null;
  }

  /**
   * The first armed secret that is not bound to this URL's origin, or null. For requests whose
   * headers errand cannot see before the browser sends them (a WebSocket handshake's cookies).
   */
  unboundAt(url: string): string | null {
    return this.armed.find((secret) => !originMatchesSites(url, secret.sites))?.name ?? null;
  }

  /** True when the request carries any armed secret at all (to a bound origin or not). */
  carriesAny(request: OutgoingRequest): boolean {
    return this.armed.some((secret) => carries(secret.pattern, request));
  }
}

function carries(pattern: SecretPattern, request: OutgoingRequest): boolean {
  if (pattern.test(safeDecode(request.url)) || pattern.test(request.url)) return true;
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    if (pattern.test(name) || pattern.test(value)) return true;
  }
  const body = request.body;
  if (body === undefined || body === null || body.length === 0) return false;
  return pattern.test(typeof body === "string" ? body : body.toString("utf8"));
}

/** A URL with percent-escapes decoded once more (the pattern already knows one and two levels). */
function safeDecode(url: string): string {
  try {
    return decodeURIComponent(url);
  } catch {
    return url;
  }
}
