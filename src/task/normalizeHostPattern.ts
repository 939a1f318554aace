import type { Problem } from "../errors/result.js";
import { TASK_LIMITS } from "./limits.js";

export type HostPatternCheck = { ok: true; pattern: string } | { ok: false; problem: Problem };

const FORBIDDEN_CHARACTERS = /[\s/\\?#@:[\]%*]/;
const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;
const DOTTED_QUAD = /^\d{1,3}(\.\d{1,3}){3}$/;

/**
 * Normalizes an allowedHosts entry: a plain hostname, or "*." + hostname meaning its subdomains
 * (not the apex). Lowercases, converts international names to their ASCII (punycode) form and
 * drops one trailing dot. Schemes, paths, ports, userinfo and IP literals are refused.
 */
export function normalizeHostPattern(raw: string, path: string): HostPatternCheck {
  const wildcard = raw.startsWith("*.");
  let name = wildcard ? raw.slice(2) : raw;
  if (name.endsWith(".")) name = name.slice(0, -1);
  if (name === "" || FORBIDDEN_CHARACTERS.test(name)) {
    return fail(path, `"${shorten(raw)}" is not a plain hostname; write only the host (e.g. "example.com" or "*.example.com"), without scheme, port, path or wildcard elsewhere.`);
  }
  let ascii: string;
  try {
    ascii = new URL(`http://${name}/`).hostname;
  } catch {
    return fail(path, `"${shorten(raw)}" is not a valid hostname.`);
  }
  if (DOTTED_QUAD.test(ascii)) {
    return fail(path, `"${shorten(raw)}" is an IP address; allowedHosts takes hostnames only.`);
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

function fail(path: string, message: string): HostPatternCheck {
  return { ok: false, problem: { code: "invalid_allowed_host", path, message } };
}

function shorten(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
