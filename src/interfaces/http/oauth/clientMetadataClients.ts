import type { OAuthClientRecord } from "../../../store/AccessStore.js";
import type { FetchedMetadata } from "./clientMetadataFetch.js";
import { clientIdUrlProblem, readClientMetadataDocument } from "./clientMetadataDocument.js";

export type ResolvedClient = { ok: true; client: OAuthClientRecord } | { ok: false; reason: string };

export interface ClientMetadataClientsOptions {
  fetch: (url: string) => Promise<FetchedMetadata>;
  extraRedirects: readonly string[];
  /** How long an accepted document is reused before it is fetched again. Default 10 minutes. */
  ttlMs?: number;
  /** Accepted documents kept at once; the oldest goes first. Default 100. */
  maxEntries?: number;
  /** Fetches in flight at once; a request past this is refused rather than queued. Default 4. */
  maxInFlight?: number;
  clock?: () => number;
}

/**
 * Clients identified by a Client ID Metadata Document URL. Nothing about them is stored: each
 * /authorize reads the document (from a bounded in-memory cache, else fetched), so a client that
 * changes or withdraws its document is seen within the cache's lifetime, and nothing an anonymous
 * caller sends can fill the store. Refusals are not cached; concurrent fetches are capped.
 */
export function createClientMetadataClients(options: ClientMetadataClientsOptions): (clientId: string) => Promise<ResolvedClient> {
  const ttlMs = options.ttlMs ?? 600_000;
  const maxEntries = options.maxEntries ?? 100;
  const maxInFlight = options.maxInFlight ?? 4;
  const clock = options.clock ?? Date.now;
  const cache = new Map<string, { client: OAuthClientRecord; untilMs: number }>();
  const inFlight = new Map<string, Promise<ResolvedClient>>();

  async function load(clientId: string): Promise<ResolvedClient> {
    const fetched = await options.fetch(clientId);
    if (!fetched.ok) return { ok: false, reason: `errand could not read the client's metadata document at ${clientId}: ${fetched.reason}` };
    const verdict = readClientMetadataDocument(clientId, fetched.text, options.extraRedirects);
    if (!verdict.ok) return { ok: false, reason: `The client's metadata document at ${clientId} is refused: ${verdict.reason}` };
    cache.delete(clientId);
    cache.set(clientId, { client: verdict.client, untilMs: clock() + ttlMs });
    while (cache.size > maxEntries) cache.delete(cache.keys().next().value as string);
    return verdict;
  }

  return async (clientId) => {
    const problem = clientIdUrlProblem(clientId);
    if (problem !== null) return { ok: false, reason: `A client_id URL ${problem}.` };
    const cached = cache.get(clientId);
    if (cached !== undefined && cached.untilMs > clock()) return { ok: true, client: cached.client };
    const running = inFlight.get(clientId);
    if (running !== undefined) return running;
    if (inFlight.size >= maxInFlight) return { ok: false, reason: "errand is already fetching several client metadata documents; try again in a moment." };
    const loading = load(clientId).finally(() => inFlight.delete(clientId));
    inFlight.set(clientId, loading);
    return loading;
  };
}
