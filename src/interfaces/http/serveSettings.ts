import { DAY, HOUR, KiB, MINUTE, MiB, SECOND } from "../../config/units.js";
import { ConfigError } from "../../config/configError.js";

/** Everything the HTTP app needs to know about where it lives and how strict to be. */
export interface ServeSettings {
  /** The origin clients use ("https://errand.example.com"), without a trailing slash; also the OAuth issuer. */
  publicOrigin: string;
  /** The MCP endpoint URL: the RFC 8707 resource every OAuth token is bound to. */
  mcpResource: string;
  /** Host header values accepted (lower case, with port when not the default); null admits any. */
  allowedHosts: ReadonlySet<string> | null;
  /** Redirect URIs admitted besides ChatGPT's documented callbacks (exact match; ERRAND_OAUTH_EXTRA_REDIRECTS). */
  extraRedirects: readonly string[];
  /** Origins a browser may call /mcp from besides errand's own (ERRAND_MCP_ALLOWED_ORIGINS); other Origin headers get 403. */
  mcpAllowedOrigins: readonly string[];
  /** Cookies get Secure when the public origin is https. */
  secureCookies: boolean;
  limits: BodyLimits;
  tokens: TokenLifetimes;
  lockout: LockoutPolicy;
  failures: FailureLimitPolicy;
  /** Owner console sessions: idle and absolute lifetimes (ms). */
  ownerSession: { idleMs: number; maxMs: number };
  /** Clients registered at most; past it the oldest never-approved client is forgotten. */
  maxClients: number;
}

export interface BodyLimits {
  /** POST /mcp (bytes). */
  mcpBytes: number;
  /** REST bodies (bytes): a task is at most 256 KiB. */
  restBytes: number;
  /** OAuth form posts and registration (bytes). */
  formBytes: number;
}

export interface TokenLifetimes {
  accessMs: number;
  refreshMs: number;
  codeMs: number;
  /** How long a consent page stays answerable. */
  consentMs: number;
  /** A spent refresh token presented again within this long gets the same new pair (a retry), not revocation; REFRESH_REUSE_GRACE_MS. */
  refreshReuseGraceMs: number;
}

export interface LockoutPolicy {
  /** Owner-password attempts from one client address, counted before they are checked, that lock it when the last is wrong. */
  threshold: number;
  /** First lock; each further lock doubles it, up to maxLockMs. */
  baseLockMs: number;
  maxLockMs: number;
  /** Delay added to each wrong answer, per failure so far (slows guessing before the lock). */
  slowdownStepMs: number;
  slowdownMaxMs: number;
  /** A history whose last failure is this old is forgotten (when not locked). */
  forgetMs: number;
}

export interface FailureLimitPolicy {
  /** Authentication failures one client address may have per window before it gets 429. */
  max: number;
  windowMs: number;
  /** Client registrations one address may make per window. */
  registrations: number;
  registrationWindowMs: number;
}

export const DEFAULT_LIMITS: BodyLimits = { mcpBytes: 1 * MiB, restBytes: 512 * KiB, formBytes: 16 * KiB };
/**
 * How long after a refresh a client may present the same refresh token again and get the same new
 * pair: long enough for a retry after a lost answer (network blip, timeout, restart), short enough
 * that a stolen copy used later still revokes the grant.
 */
export const REFRESH_REUSE_GRACE_MS = 45 * SECOND;
export const DEFAULT_TOKEN_LIFETIMES: TokenLifetimes = {
  accessMs: 1 * HOUR,
  refreshMs: 30 * DAY,
  codeMs: 5 * MINUTE,
  consentMs: 10 * MINUTE,
  refreshReuseGraceMs: REFRESH_REUSE_GRACE_MS,
};
export const DEFAULT_LOCKOUT: LockoutPolicy = {
  threshold: 5,
  baseLockMs: 15 * MINUTE,
  maxLockMs: 1 * DAY,
  slowdownStepMs: 500,
  slowdownMaxMs: 4 * SECOND,
  forgetMs: 1 * DAY,
};
export const DEFAULT_FAILURE_LIMIT: FailureLimitPolicy = { max: 30, windowMs: 1 * MINUTE, registrations: 20, registrationWindowMs: 1 * HOUR };
export const DEFAULT_OWNER_SESSION = { idleMs: 10 * MINUTE, maxMs: 12 * HOUR };

const LOOPBACK_NAMES = ["127.0.0.1", "localhost", "[::1]"];

export interface ServeAddress {
  /** The address the server binds. */
  host: string;
  port: number;
  /** --public-url; absent means the loopback URL is the public one (local use and tests). */
  publicUrl?: string;
  extraRedirects?: readonly string[];
  mcpAllowedOrigins?: readonly string[];
}

/** A problem with the serve options, phrased for the operator. */
export class ServeSettingsError extends ConfigError {}

export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  return bare === "localhost" || bare === "::1" || /^127(?:\.\d{1,3}){3}$/.test(bare);
}

/**
 * Derives the settings from where errand listens and the URL clients use. A non-loopback bind needs
 * a public URL (the issuer and resource must be what clients see), and a public URL must be https
 * unless it is itself loopback. The Host header is checked against the public host, plus the
 * loopback names when bound to loopback (DNS rebinding: a page on evil.example resolving to
 * 127.0.0.1 sends Host: evil.example and is refused).
 */
export function resolveServeSettings(address: ServeAddress, overrides: Partial<ServeSettings> = {}): ServeSettings {
  const loopback = isLoopbackHost(address.host);
  let origin: URL;
  if (address.publicUrl === undefined) {
    if (!loopback)
      throw new ServeSettingsError(
        `--host ${address.host} is not loopback: give --public-url https://... (the URL ChatGPT will use), so tokens are issued for it.`,
      );
    const host = address.host.includes(":") && !address.host.startsWith("[") ? `[${address.host}]` : address.host;
    origin = new URL(`http://${host}:${address.port}`);
  } else {
    try {
      origin = new URL(address.publicUrl);
    } catch {
      throw new ServeSettingsError(`--public-url "${address.publicUrl}" is not a URL; write it as https://host.example.`);
    }
    if (origin.protocol !== "https:" && !(origin.protocol === "http:" && isLoopbackHost(origin.hostname))) {
      throw new ServeSettingsError(`--public-url must use https (ChatGPT only connects to https); "${address.publicUrl}" does not.`);
    }
    if ((origin.pathname !== "/" && origin.pathname !== "") || origin.search !== "" || origin.hash !== "" || origin.username !== "" || origin.password !== "") {
      throw new ServeSettingsError(`--public-url must be an origin only (https://host[:port]), without path, query or credentials.`);
    }
  }
  const publicOrigin = origin.origin;
  const hosts = new Set<string>([origin.host.toLowerCase()]);
  if (loopback) for (const name of LOOPBACK_NAMES) hosts.add(`${name}:${address.port}`);
  return {
    publicOrigin,
    mcpResource: `${publicOrigin}/mcp`,
    allowedHosts: hosts,
    extraRedirects: address.extraRedirects ?? [],
    mcpAllowedOrigins: address.mcpAllowedOrigins ?? [],
    secureCookies: origin.protocol === "https:",
    limits: DEFAULT_LIMITS,
    tokens: DEFAULT_TOKEN_LIFETIMES,
    lockout: DEFAULT_LOCKOUT,
    failures: DEFAULT_FAILURE_LIMIT,
    ownerSession: DEFAULT_OWNER_SESSION,
    maxClients: 100,
    ...overrides,
  };
}

/** ERRAND_OAUTH_EXTRA_REDIRECTS: comma-separated absolute URLs, each admitted exactly as written. */
export function parseExtraRedirects(raw: string | undefined): string[] {
  const entries = (raw ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  for (const entry of entries) {
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw new ServeSettingsError(`ERRAND_OAUTH_EXTRA_REDIRECTS: "${entry.slice(0, 80)}" is not an absolute URL.`);
    }
    if (url.hash !== "" || (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopbackHost(url.hostname)))) {
      throw new ServeSettingsError(`ERRAND_OAUTH_EXTRA_REDIRECTS: "${entry.slice(0, 80)}" must be https (or http on loopback) and have no fragment.`);
    }
  }
  return entries;
}

/** ERRAND_MCP_ALLOWED_ORIGINS: comma-separated origins (scheme://host[:port]) a browser-based MCP client may call /mcp from. */
export function parseMcpAllowedOrigins(raw: string | undefined): string[] {
  const entries = (raw ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  return entries.map((entry) => {
    let url: URL | undefined;
    try {
      url = new URL(entry);
    } catch {
      url = undefined;
    }
    if (url === undefined || (url.protocol !== "https:" && url.protocol !== "http:") || url.origin !== entry.replace(/\/$/, "").toLowerCase()) {
      throw new ServeSettingsError(`ERRAND_MCP_ALLOWED_ORIGINS: "${entry.slice(0, 80)}" is not an origin; write it as https://host[:port], without a path.`);
    }
    return url.origin;
  });
}
