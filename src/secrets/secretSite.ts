import type { Result } from "../errors/result.js";
import { failed, ok } from "../errors/result.js";

/** At most this many sites per secret; a secret meant for many sites is a shared password, and each site is one more place it can leak. */
export const MAX_SECRET_SITES = 16;
const MAX_SITE_CHARS = 300;
const ORIGIN_SHAPE = /^(https?):\/\/([^/?#\\]*)\/?$/i;
const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

/**
 * A site a secret may be typed into and sent to: an exact origin ("https://portal.example.com",
 * "http://127.0.0.1:8080") or one leading wildcard label ("https://*.example.com", which matches
 * every subdomain of example.com at any depth, never example.com itself). Scheme and port are part
 * of the site: https://x and http://x are different sites, and so are two ports.
 *
 * Normalized form: lowercase scheme and host, ASCII (punycode) host, default port omitted, no
 * trailing slash. A path, query, fragment or user name is refused, never silently dropped.
 */
export function normalizeSecretSite(raw: string, path: string, subject = "a site a secret can be bound to"): Result<string> {
  const refuse = (why: string) =>
    failed<string>([
      {
        code: "invalid_secret_site",
        path,
        message: `"${shorten(raw)}" is not ${subject}: ${why}. Write an origin such as https://portal.example.com, http://127.0.0.1:8080 or https://*.example.com.`,
      },
    ]);
  if (raw.length > MAX_SITE_CHARS) return refuse(`it is longer than ${MAX_SITE_CHARS} characters`);
  const shape = ORIGIN_SHAPE.exec(raw.trim() === raw ? raw : "");
  if (shape === null) return refuse("it must be scheme://host[:port] with http or https and nothing after the host (no path, query or fragment)");
  const scheme = (shape[1] ?? "").toLowerCase();
  let authority = shape[2] ?? "";
  if (authority.includes("@")) return refuse("it carries a user name or password");
  const wildcard = authority.startsWith("*.");
  if (wildcard) authority = authority.slice(2);
  if (authority.includes("*")) return refuse("a wildcard may only be the whole first label (https://*.example.com)");
  let url: URL;
  try {
    url = new URL(`${scheme}://${authority}/`);
  } catch {
    return refuse("the host is not valid");
  }
  let host = url.hostname;
  if (host.endsWith(".")) host = host.slice(0, -1);
  if (host === "") return refuse("it has no host");
  const ip = host.startsWith("[") || /^\d+(\.\d+){3}$/.test(host);
  if (!ip && !host.split(".").every((label) => LABEL.test(label))) return refuse("the host is not a valid name");
  if (wildcard && (ip || !host.includes("."))) return refuse("a wildcard must sit above a name with at least two labels (https://*.example.com)");
  return ok(`${scheme}://${wildcard ? "*." : ""}${host}${url.port === "" ? "" : `:${url.port}`}`);
}

/** Normalizes, de-duplicates and sorts a secret's sites; at least one and at most MAX_SECRET_SITES. */
export function normalizeSecretSites(raw: readonly string[], path: string): Result<string[]> {
  if (raw.length === 0)
    return failed([
      { code: "invalid_secret_site", path, message: "A secret needs at least one site it may be typed into (--site https://portal.example.com)." },
    ]);
  if (raw.length > MAX_SECRET_SITES)
    return failed([{ code: "invalid_secret_site", path, message: `A secret may be bound to at most ${MAX_SECRET_SITES} sites; it has ${raw.length}.` }]);
  const sites = new Set<string>();
  const problems = [];
  for (const [index, entry] of raw.entries()) {
    const checked = normalizeSecretSite(entry, `${path}/${index}`);
    if (checked.ok) sites.add(checked.value);
    else problems.push(...checked.errors);
  }
  return problems.length > 0 ? failed(problems) : ok([...sites].sort());
}

/**
 * True when the origin of `url` is one of `sites`. Anything that has no http(s) origin (about:blank,
 * about:srcdoc, data:, an opaque origin) matches nothing: a secret is never typed or sent there.
 */
export function originMatchesSites(url: string, sites: readonly string[]): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  // blob: URLs carry their creator's origin; URL reports it as .origin.
  const origin = parsed.origin;
  if (origin === "null") return false;
  let target: URL;
  try {
    target = new URL(origin);
  } catch {
    return false;
  }
  if (target.protocol !== "http:" && target.protocol !== "https:") return false;
  const scheme = target.protocol.slice(0, -1);
  return sites.some((site) => {
    const parts = siteParts(site);
    return parts !== null && parts.scheme === scheme && parts.port === target.port && hostMatchesSiteParts(target.hostname, parts);
  });
}

/**
 * True when `host` is the host of one of `sites`, whatever the scheme and port (or a subdomain, for
 * a wildcard site). Cookies are scoped by host, not by port or (without Secure) scheme: a browser
 * sends a site's cookies to every origin on such a host.
 */
export function hostWithinSites(host: string, sites: readonly string[]): boolean {
  return sites.some((site) => {
    const parts = siteParts(site);
    return parts !== null && hostMatchesSiteParts(host, parts);
  });
}

interface SiteParts {
  scheme: string;
  wildcard: boolean;
  host: string;
  port: string;
}

/** A normalized site split into its scheme, wildcard flag, host and port ("" for the default). */
function siteParts(site: string): SiteParts | null {
  const match = /^(https?):\/\/(\*\.)?(.+?)(?::(\d+))?$/.exec(site);
  if (match === null) return null;
  return { scheme: match[1] ?? "", wildcard: match[2] !== undefined, host: match[3] ?? "", port: match[4] ?? "" };
}

function hostMatchesSiteParts(rawHost: string, parts: SiteParts): boolean {
  const host = (rawHost.endsWith(".") ? rawHost.slice(0, -1) : rawHost).toLowerCase();
  return parts.wildcard ? host.endsWith(`.${parts.host}`) : host === parts.host;
}

function shorten(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/**
 * True when some host `pattern` (an allowedHosts entry: a name, "*.name" or an IP literal) admits
 * could be a host of one of `sites`, whatever the scheme and port: whether a task that may go there
 * could ever reach an origin the secret is bound to.
 */
export function sitesMayMatchHostPattern(sites: readonly string[], pattern: string): boolean {
  const lower = pattern.toLowerCase();
  const patternWildcard = lower.startsWith("*.");
  const patternBase = patternWildcard ? lower.slice(2) : lower;
  return sites.some((site) => {
    const match = /^https?:\/\/(\*\.)?(.+?)(?::\d+)?$/.exec(site);
    if (match === null) return false;
    const siteBase = match[2] ?? "";
    const siteWildcard = match[1] !== undefined;
    if (!siteWildcard && !patternWildcard) return siteBase === patternBase;
    if (!siteWildcard) return siteBase.endsWith(`.${patternBase}`);
    if (!patternWildcard) return patternBase.endsWith(`.${siteBase}`);
    return siteBase === patternBase || siteBase.endsWith(`.${patternBase}`) || patternBase.endsWith(`.${siteBase}`);
  });
}

/**
 * True when every host an allowedHosts `pattern` admits (a name, "*.name" or an IP literal) is a
 * host of one of `sites`: a name must be a site's host (or under a wildcard site), and "*.name"
 * needs a wildcard site at or above name. The opposite question to sitesMayMatchHostPattern: whether
 * a task that may go there stays on the sites.
 */
export function hostPatternWithinSites(pattern: string, sites: readonly string[]): boolean {
  const lower = pattern.toLowerCase();
  if (!lower.startsWith("*.")) return hostWithinSites(lower, sites);
  const base = lower.slice(2);
  return sites.some((site) => {
    const parts = siteParts(site);
    return parts !== null && parts.wildcard && (base === parts.host || base.endsWith(`.${parts.host}`));
  });
}
