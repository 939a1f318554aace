import type { Result } from "../errors/result.js";
import { canonicalIp } from "./classifyIp.js";
import { normalizeHost } from "./classifyHostName.js";
import type { Resolver, ResolveResult } from "./resolver.js";

/**
 * A resolver that answers from a fixed map (tests, and `errand preflight --resolve`). Hosts match
 * case-insensitively with one trailing dot ignored; a host mapped to [] has no answer; any host not in
 * the map does not exist.
 */
export function createStaticResolver(entries: ReadonlyMap<string, readonly string[]> | Record<string, readonly string[]>, name = "static"): Resolver {
  const table = new Map<string, string[]>();
  const pairs: Iterable<[string, readonly string[]]> = isMap(entries) ? entries.entries() : Object.entries(entries);
  for (const [host, addresses] of pairs) table.set(normalizeHost(host), [...addresses]);
  return {
    name,
    resolve(host: string): Promise<ResolveResult> {
      const addresses = table.get(normalizeHost(host));
      if (addresses === undefined) return Promise.resolve({ error: "nxdomain" });
      if (addresses.length === 0) return Promise.resolve({ error: "no_answer" });
      return Promise.resolve({ addresses: [...addresses] });
    },
  };
}

/**
 * Parses `HOST=IP[,IP...]` entries (the `--resolve` option) into a map for createStaticResolver.
 * IPs are plain IPv4 or IPv6 without brackets; `HOST=` means the host has no answer. Entries for the
 * same host add up.
 */
export function parseStaticResolveEntries(entries: readonly string[]): Result<Map<string, string[]>> {
  const map = new Map<string, string[]>();
  for (const [index, entry] of entries.entries()) {
    const eq = entry.indexOf("=");
    const host = eq < 0 ? "" : normalizeHost(entry.slice(0, eq).trim());
    if (eq < 0 || host === "" || /[\s/@:[\]]/.test(host)) {
      return problem(index, `--resolve "${entry}" is not HOST=IP[,IP...]`);
    }
    const list = map.get(host) ?? [];
    const text = entry.slice(eq + 1).trim();
    for (const raw of text === "" ? [] : text.split(",")) {
      const ip = canonicalIp(raw.trim());
      if (ip === null) return problem(index, `--resolve "${entry}": "${raw}" is not a plain IPv4 or IPv6 address (no brackets)`);
      if (!list.includes(ip)) list.push(ip);
    }
    map.set(host, list);
  }
  return { ok: true, value: map };
}

function problem(index: number, message: string): Result<Map<string, string[]>> {
  return { ok: false, errors: [{ code: "usage", path: `/${index}`, message }] };
}

function isMap<V>(value: ReadonlyMap<string, V> | Record<string, V>): value is ReadonlyMap<string, V> {
  return value instanceof Map;
}
