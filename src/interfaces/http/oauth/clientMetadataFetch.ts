import { request } from "node:https";
import type { LookupFunction } from "node:net";
import { isIP } from "node:net";
import type { PrivateAllowance } from "../../../policy/parseAllowPrivate.js";
import { preflightUrl } from "../../../policy/preflightUrl.js";
import type { Resolver } from "../../../policy/resolver.js";

export interface ClientMetadataFetchOptions {
  resolver: Resolver;
  /** Operator allowances (--allow-private, ERRAND_ALLOW_PRIVATE): the only way a private host is reached. */
  allowPrivate: readonly PrivateAllowance[];
  /** Largest document read; anything longer is refused unread past this. Default 5120 bytes. */
  maxBytes?: number;
  /** The whole fetch (lookup, connect, TLS, headers, body). Default 5000 ms. */
  timeoutMs?: number;
  /** Extra trusted CA certificates (PEM) on top of Node's own, which already include NODE_EXTRA_CA_CERTS. */
  extraCa?: string;
}

export type FetchedMetadata = { ok: true; text: string } | { ok: false; reason: string };

/**
 * Fetches a client's metadata document the way errand reaches anything on the network: the URL goes
 * through the same preflight as a task's URLs (https only here, public addresses only unless an
 * operator allowance names the exact host:port), and the connection is dialled to an address that
 * preflight checked, never to a fresh lookup. No redirect is followed, no cookie or credential is
 * sent, the body is bounded in bytes and the whole exchange in time.
 */
export function createClientMetadataFetcher(options: ClientMetadataFetchOptions): (url: string) => Promise<FetchedMetadata> {
  const maxBytes = options.maxBytes ?? 5120;
  const timeoutMs = options.timeoutMs ?? 5000;
  return async (url) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    const verdict = await preflightUrl(url, { resolver: options.resolver, allowPrivate: options.allowPrivate, timeoutMs, signal: deadline });
    if (verdict.verdict === "block" || verdict.url === null)
      return { ok: false, reason: `the network preflight refused it: ${verdict.reason} [${verdict.code}]` };
    const checked = verdict.addresses[0]?.ip;
    if (checked === undefined) return { ok: false, reason: "the network preflight gave no address to connect to" };
    const family = isIP(checked);
    // Node asks with `all` when it may try several families; either way only the checked address is offered.
    const pinned = ((
      _host: string,
      lookupOptions: { all?: boolean },
      callback: (error: Error | null, address: string | { address: string; family: number }[], family?: number) => void,
    ) => {
      if (lookupOptions.all === true) callback(null, [{ address: checked, family }]);
      else callback(null, checked, family);
    }) as LookupFunction;
    return await new Promise<FetchedMetadata>((resolve) => {
      const fail = (reason: string) => resolve({ ok: false, reason });
      const req = request(
        verdict.url as string,
        {
          method: "GET",
          lookup: pinned,
          agent: false,
          signal: deadline,
          headers: { accept: "application/json", "user-agent": "errand (OAuth client metadata)" },
          ...(options.extraCa === undefined ? {} : { ca: options.extraCa }),
        },
        (res) => {
          const status = res.statusCode ?? 0;
          if (status !== 200) {
            res.destroy();
            return fail(
              status >= 300 && status < 400 ? `it answered with a redirect (HTTP ${status}); errand follows none` : `it answered HTTP ${status}, not 200`,
            );
          }
          const declared = Number(res.headers["content-length"] ?? "0");
          if (declared > maxBytes) {
            res.destroy();
            return fail(`the document is larger than ${maxBytes} bytes`);
          }
          const chunks: Buffer[] = [];
          let size = 0;
          res.on("data", (chunk: Buffer) => {
            size += chunk.length;
            if (size > maxBytes) {
              res.destroy();
              fail(`the document is larger than ${maxBytes} bytes`);
              return;
            }
            chunks.push(chunk);
          });
          res.on("end", () => resolve({ ok: true, text: Buffer.concat(chunks).toString("utf8") }));
          res.on("error", () => fail(deadline.aborted ? `it did not answer within ${timeoutMs} ms` : "the connection broke while reading the document"));
          res.on("close", () => fail(deadline.aborted ? `it did not answer within ${timeoutMs} ms` : "the connection closed before the document was complete"));
        },
      );
      req.on("error", (error) => fail(deadline.aborted ? `it did not answer within ${timeoutMs} ms` : `it could not be fetched (${error.message})`));
      req.end();
    });
  };
}
