import { request as httpRequest } from "node:http";
import type { IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import type { Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import type { Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import type { DocumentRequest, DocumentResponse } from "../providerTypes.js";
import { DocumentFetchError } from "../providerTypes.js";
import { errorMessage } from "../../errors/errorMessage.js";

export interface FetchDocumentOptions {
  /** `http://127.0.0.1:PORT`: the session's egress proxy, the only way errand's own fetch leaves. */
  proxyUrl: string;
  /** The session proxy's credential, sent up front so the proxy knows the request is errand's own (never held, see TunnelGate). */
  proxyCredentials?: { username: string; password: string };
  /** Most bytes of (decoded) body accepted; past it the fetch stops with document_too_large. */
  maxBytes: number;
  /**
   * Most bytes of a response the site marks as a download (Content-Disposition: attachment), which
   * the browser will hand to errand's download keeper (ERRAND_DOWNLOAD_MAX_BYTES); past it the fetch
   * stops with download_too_large. Absent: maxBytes.
   */
  maxAttachmentBytes?: number;
  timeoutMs: number;
  /** Tests only (a self-signed loopback site): accept any certificate. Never set from configuration. */
  acceptAnyCertificate?: boolean;
}

/** Headers that describe one hop or that errand sets itself; never copied from the browser's request. */
const DROPPED_REQUEST_HEADERS = new Set([
  "host",
  "connection",
  "proxy-connection",
  "keep-alive",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "content-length",
  "accept-encoding",
]);
/** Response headers that stop being true once errand has decoded and counted the body. */
const DROPPED_RESPONSE_HEADERS = new Set(["content-encoding", "content-length", "transfer-encoding", "connection", "keep-alive"]);

/**
 * Fetches one main-frame document for the browser, through the session's egress proxy, without
 * following redirects, streaming and counting the decoded body: past `maxBytes` it stops reading
 * and throws DocumentFetchError("document_too_large"), so errand's memory holds at most one capped
 * document per navigation whatever a site sends. The CONNECT carries a User-Agent like the
 * browser's own tunnels.
 */
export async function fetchDocument(request: DocumentRequest, options: FetchDocumentOptions): Promise<DocumentResponse> {
  const url = new URL(request.url);
  const proxy = new URL(options.proxyUrl);
  const signal = AbortSignal.timeout(options.timeoutMs);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) if (!DROPPED_REQUEST_HEADERS.has(name.toLowerCase())) headers[name] = value;
  headers["accept-encoding"] = "gzip, deflate, br";
  headers["host"] = url.host;
  if (request.body !== null) headers["content-length"] = String(request.body.length);
  const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
  const credential =
    options.proxyCredentials === undefined
      ? {}
      : { "proxy-authorization": `Basic ${Buffer.from(`${options.proxyCredentials.username}:${options.proxyCredentials.password}`).toString("base64")}` };

  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    signal.addEventListener("abort", () => reject(new DocumentFetchError("timeout", `fetching ${url.host} took longer than ${options.timeoutMs} ms`)), {
      once: true,
    });
    const send = (req: ReturnType<typeof httpRequest>) => {
      req.once("response", resolve);
      req.once("error", (error) => reject(new DocumentFetchError("failed", error.message)));
      signal.addEventListener("abort", () => req.destroy(), { once: true });
      req.end(request.body ?? undefined);
    };
    if (url.protocol === "http:") {
      send(
        httpRequest({
          host: proxy.hostname,
          port: Number(proxy.port),
          method: request.method,
          path: url.href,
          headers: { ...headers, ...credential },
          agent: false,
        }),
      );
      return;
    }
    const tunnel = httpRequest({
      host: proxy.hostname,
      port: Number(proxy.port),
      method: "CONNECT",
      path: `${url.hostname}:${port}`,
      headers: { host: `${url.hostname}:${port}`, "user-agent": headers["user-agent"] ?? "errand", ...credential },
      agent: false,
    });
    tunnel.once("connect", (answer: IncomingMessage, socket: Socket) => {
      if (answer.statusCode !== 200) {
        socket.destroy();
        return reject(new DocumentFetchError("refused", `the egress proxy refused ${url.host} (${answer.statusCode ?? 0})`));
      }
      // No agent: with `agent: false` Node would make a fresh Agent that ignores createConnection and
      // dials the URL's host itself, past the proxy. SNI carries names only (RFC 6066), never an IP.
      const hostname = url.hostname.replace(/^\[|\]$/g, "");
      const tls = () =>
        tlsConnect({
          socket,
          ...(isIP(hostname) === 0 ? { servername: hostname } : {}),
          ALPNProtocols: ["http/1.1"],
          rejectUnauthorized: options.acceptAnyCertificate !== true,
        });
      send(httpsRequest({ method: request.method, path: `${url.pathname}${url.search}`, headers, createConnection: tls }));
    });
    tunnel.once("error", (error) => reject(new DocumentFetchError("failed", error.message)));
    signal.addEventListener("abort", () => tunnel.destroy(), { once: true });
    tunnel.end();
  });

  try {
    const attachment = /^\s*attachment/i.test(String(response.headers["content-disposition"] ?? ""));
    const body = await readCapped(
      decoded(response),
      attachment && options.maxAttachmentBytes !== undefined
        ? { maxBytes: options.maxAttachmentBytes, kind: "download" }
        : { maxBytes: options.maxBytes, kind: "document" },
      signal,
    );
    const out: { name: string; value: string }[] = [];
    for (let i = 0; i + 1 < response.rawHeaders.length; i += 2) {
      const name = response.rawHeaders[i] ?? "";
      if (!DROPPED_RESPONSE_HEADERS.has(name.toLowerCase())) out.push({ name, value: response.rawHeaders[i + 1] ?? "" });
    }
    return { status: response.statusCode ?? 502, headers: out, body };
  } finally {
    response.destroy();
  }
}

function decoded(response: IncomingMessage): Readable {
  const encoding = String(response.headers["content-encoding"] ?? "")
    .trim()
    .toLowerCase();
  const decoder =
    encoding === "gzip" || encoding === "x-gzip"
      ? createGunzip()
      : encoding === "deflate"
        ? createInflate()
        : encoding === "br"
          ? createBrotliDecompress()
          : null;
  if (decoder === null) return response;
  response.on("error", (error) => decoder.destroy(error));
  return response.pipe(decoder);
}

/** Reads a stream into one buffer, refusing (and destroying the stream) the moment it passes maxBytes. */
async function readCapped(stream: Readable, cap: { maxBytes: number; kind: "document" | "download" }, signal: AbortSignal): Promise<Buffer> {
  const { maxBytes } = cap;
  const chunks: Buffer[] = [];
  let total = 0;
  const onAbort = () => stream.destroy(new DocumentFetchError("timeout", "the document did not arrive in time"));
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    for await (const chunk of stream) {
      const piece = chunk as Buffer;
      total += piece.length;
      if (total > maxBytes) {
        stream.destroy();
        if (cap.kind === "download")
          throw new DocumentFetchError(
            "download_too_large",
            `the download is larger than ${maxBytes} bytes (ERRAND_DOWNLOAD_MAX_BYTES); errand stopped reading it`,
          );
        throw new DocumentFetchError(
          "document_too_large",
          `the document is larger than ${maxBytes} bytes (ERRAND_MAX_DOCUMENT_BYTES); errand stopped reading it`,
        );
      }
      chunks.push(piece);
    }
  } catch (error) {
    if (error instanceof DocumentFetchError) throw error;
    throw new DocumentFetchError("failed", errorMessage(error));
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
  return Buffer.concat(chunks, total);
}
