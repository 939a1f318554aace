import { canonicalIp, parseIp } from "./classifyIp.js";
import { normalizeHost } from "./classifyHostName.js";
import type { ResolveError, Resolver, ResolveResult } from "./resolver.js";

export const DEFAULT_DOH_ENDPOINT = "https://cloudflare-dns.com/dns-query";

export interface DohResolverOptions {
  /** JSON DNS-over-HTTPS endpoint (the `application/dns-json` API). Default Cloudflare's. */
  endpoint?: string;
  /** Milliseconds for both queries (A and AAAA) together. Default 3 s. */
  timeoutMs?: number;
  /** Answers are cached for their smallest TTL, but never longer than this many seconds. Default 300. */
  maxTtlSeconds?: number;
  /** At most this many names are cached; the oldest entry goes first. Default 1000. */
  maxEntries?: number;
  /** Injected for tests; defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Injected clock (milliseconds); defaults to Date.now. */
  now?: () => number;
}

const RECORD_TYPES = { A: 1, AAAA: 28 } as const;
const MAX_BODY_BYTES = 64 * 1024;

type QueryResult = { addresses: string[]; ttl: number } | { error: ResolveError; detail?: string };

/**
 * Returns why an endpoint is unacceptable, or null. It must be https, except plain http to a
 * loopback address, which only a test or a local resolver on the same machine can be.
 */
export function checkDohEndpoint(endpoint: string): string | null {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return `DNS-over-HTTPS endpoint "${endpoint}" is not a URL`;
  }
  if (url.protocol === "https:") return null;
  const host = normalizeHost(url.hostname);
  const loopback = (parseIp(host)?.kind() === "ipv4" && host.startsWith("127.")) || host === "::1";
  if (url.protocol === "http:" && loopback) return null;
  return `DNS-over-HTTPS endpoint "${endpoint}" must use https (plain http only to a loopback address)`;
}

/**
 * Resolves names with DNS-over-HTTPS (JSON API), asking for A and AAAA in parallel. Any failure of
 * either query (HTTP error, timeout, malformed JSON or record, DNS error code) fails the whole lookup,
 * because a partial answer would hide addresses that must be checked. Successful answers are cached
 * by TTL (capped); failures are not cached.
 */
export function createDohResolver(options: DohResolverOptions = {}): Resolver {
  const endpoint = options.endpoint ?? DEFAULT_DOH_ENDPOINT;
  const problem = checkDohEndpoint(endpoint);
  if (problem !== null) throw new Error(problem);
  const timeoutMs = options.timeoutMs ?? 3_000;
  const maxTtlMs = (options.maxTtlSeconds ?? 300) * 1_000;
  const maxEntries = options.maxEntries ?? 1_000;
  const doFetch = options.fetch ?? fetch;
  const now = options.now ?? Date.now;
  const cache = new Map<string, { addresses: string[]; expiresAt: number }>();

  async function query(host: string, type: keyof typeof RECORD_TYPES, signal: AbortSignal): Promise<QueryResult> {
    const url = new URL(endpoint);
    url.searchParams.set("name", host);
    url.searchParams.set("type", type);
    let body: unknown;
    try {
      const response = await doFetch(url, { headers: { accept: "application/dns-json" }, redirect: "error", signal });
      if (!response.ok) return { error: "failure", detail: `resolver answered HTTP ${response.status}` };
      const bytes = await response.arrayBuffer();
      if (bytes.byteLength > MAX_BODY_BYTES) return { error: "failure", detail: "resolver answer too large" };
      body = JSON.parse(new TextDecoder().decode(bytes)) as unknown;
    } catch (error) {
      if (signal.aborted) return { error: "timeout" };
      return { error: "failure", detail: error instanceof SyntaxError ? "resolver answer is not JSON" : "resolver unreachable" };
    }
    return readAnswer(body, RECORD_TYPES[type]);
  }

  return {
    name: `doh:${new URL(endpoint).host}`,
    async resolve(rawHost: string, signal?: AbortSignal): Promise<ResolveResult> {
      const host = normalizeHost(rawHost);
      const cached = cache.get(host);
      if (cached !== undefined && cached.expiresAt > now()) return { addresses: [...cached.addresses] };
      cache.delete(host);

      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), timeoutMs);
      const onAbort = (): void => controller.abort();
      signal?.addEventListener("abort", onAbort, { once: true });
      if (signal?.aborted === true) controller.abort();
      let results: QueryResult[];
      try {
        results = await Promise.all([query(host, "A", controller.signal), query(host, "AAAA", controller.signal)]);
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      }

      const failed = results.find((r) => "error" in r && r.error !== "nxdomain");
      if (failed !== undefined && "error" in failed)
        return failed.detail === undefined ? { error: failed.error } : { error: failed.error, detail: failed.detail };
      if (results.some((r) => "error" in r)) return { error: "nxdomain" };
      const answers = results as { addresses: string[]; ttl: number }[];
      const addresses = answers.flatMap((r) => r.addresses);
      if (addresses.length === 0) return { error: "no_answer" };
      const ttlMs = Math.min(maxTtlMs, ...answers.filter((r) => r.addresses.length > 0).map((r) => r.ttl * 1_000));
      if (ttlMs > 0 && maxEntries > 0) {
        if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
        cache.set(host, { addresses, expiresAt: now() + ttlMs });
      }
      return { addresses: [...addresses] };
    },
  };
}

/** Reads one JSON DNS answer; only records of the asked type count, and each must be well formed. */
function readAnswer(body: unknown, type: number): QueryResult {
  if (typeof body !== "object" || body === null || !("Status" in body) || typeof body.Status !== "number") {
    return { error: "failure", detail: "resolver answer has no Status" };
  }
  if (body.Status === 3) return { error: "nxdomain" };
  if (body.Status !== 0) return { error: "failure", detail: `DNS status ${body.Status}` };
  const records = "Answer" in body ? body.Answer : [];
  if (!Array.isArray(records)) return { error: "failure", detail: "resolver answer is malformed" };
  const addresses: string[] = [];
  let ttl = Number.POSITIVE_INFINITY;
  for (const record of records as unknown[]) {
    if (typeof record !== "object" || record === null || !("type" in record) || record.type !== type) continue;
    const data = "data" in record && typeof record.data === "string" ? canonicalIp(record.data) : null;
    const family = type === RECORD_TYPES.A ? "ipv4" : "ipv6";
    if (data === null || parseIp(data)?.kind() !== family) return { error: "failure", detail: "resolver answer holds a malformed address" };
    const recordTtl = "TTL" in record && typeof record.TTL === "number" && record.TTL >= 0 ? record.TTL : 0;
    ttl = Math.min(ttl, recordTtl);
    if (!addresses.includes(data)) addresses.push(data);
  }
  return { addresses, ttl: addresses.length === 0 ? 0 : ttl };
}
