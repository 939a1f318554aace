import type { Problem } from "../errors/result.js";
import { TASK_LIMITS } from "./limits.js";

export type HostPatternCheck = { ok: true; pattern: string } | { ok: false; problem: Problem };

const FORBIDDEN_CHARACTERS = /[\s/\\?#@:[\]%*]/;
const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;
const DOTTED_QUAD = /^\d{1,3}(\.\d{1,3}){3}$/;

/**
 * Normalizes an allowedHosts entry: a plain hostname, or "*." + hostname meaning its subdomains
 * (not the apex), or an IP literal (dotted-quad IPv4, or IPv6 in brackets), kept in the form a URL's
 * hostname has. Lowercases, converts international names to their ASCII (punycode) form and drops
 * one trailing dot. Schemes, paths, ports and userinfo are refused. Whether a listed IP can be
 * reached is the network policy's question: only when an operator allowance names that very IP.
 */
export function normalizeHostPattern(raw: string, path: string): HostPatternCheck {
  const literal = ipLiteral(raw);
  if (literal !== null) return { ok: true, pattern: literal };
  const wildcard = raw.startsWith("*.");
  let name = wildcard ? raw.slice(2) : raw;
  if (name.endsWith(".")) name = name.slice(0, -1);
  if (name === "" || FORBIDDEN_CHARACTERS.test(name)) {
    return fail(
      path,
      `"${shorten(raw)}" is not a plain hostname; write only the host (e.g. "example.com" or "*.example.com"), without scheme, port, path or wildcard elsewhere.`,
    );
  }
  let ascii: string;
  try {
    ascii = new URL(`http://${name}/`).hostname;
  } catch {
    return fail(path, `"${shorten(raw)}" is not a valid hostname.`);
  }
  if (DOTTED_QUAD.test(ascii)) {
    return fail(path, `"${shorten(raw)}" is not a plain IP address or hostname; write an IP as four decimal numbers (e.g. "10.0.0.5").`);
  }
  if (ascii.length > TASK_LIMITS.hostnameChars || !ascii.split(".").every((label) => LABEL.test(label))) {
    return fail(path, `"${shorten(raw)}" is not a valid hostname (labels of 1-63 letters, digits or hyphens).`);
  }
  if (wildcard && !ascii.includes(".")) {
    return fail(path, `"${shorten(raw)}" is too broad: a wildcard must sit above a name with at least two labels (e.g. "*.example.com").`);
  }
  return { ok: true, pattern: wildcard ? `*.${ascii}` : ascii };
}

/** True when the host (already lowercase ASCII, no trailing dot) is matched by a normalized pattern. */
export function hostMatchesPattern(host: string, pattern: string): boolean {
  if (pattern.startsWith("*.")) return host.endsWith(pattern.slice(1));
  return host === pattern;
}

/** "10.0.0.5" or "[fd00::1]" written plainly, as its URL hostname form; null for anything else. */
function ipLiteral(raw: string): string | null {
  const ipv6 = raw.startsWith("[") && raw.endsWith("]");
  if (!ipv6 && !DOTTED_QUAD.test(raw)) return null;
  try {
    const hostname = new URL(`http://${raw}/`).hostname;
    if (ipv6 ? hostname.startsWith("[") : DOTTED_QUAD.test(hostname)) return hostname;
  } catch {
    // not an address after all
  }
  return null;
}

function fail(path: string, message: string): HostPatternCheck {
  return { ok: false, problem: { code: "invalid_allowed_host", path, message } };
}

function shorten(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
