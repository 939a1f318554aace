// A reverse proxy on loopback that passes every request to errand and appends the client's socket
// address to X-Forwarded-For, as nginx's $proxy_add_x_forwarded_for does; and a fetcher whose
// socket leaves from a chosen loopback address (127.0.0.2, 127.0.0.3, ...), so clients behind the
// proxy have different addresses. Not a test file.
import { createServer, request as httpRequest } from "node:http";
import type { IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import type { Fetcher } from "./oauthDance.js";

export interface LoopbackProxy {
  origin: string;
  close(): Promise<void>;
}

export async function startLoopbackProxy(target: string): Promise<LoopbackProxy> {
  const upstream = new URL(target);
  const server = createServer((incoming, outgoing) => {
    const headers: IncomingHttpHeaders = { ...incoming.headers };
    const client = incoming.socket.remoteAddress ?? "";
    headers["x-forwarded-for"] = headers["x-forwarded-for"] === undefined ? client : `${String(headers["x-forwarded-for"])}, ${client}`;
    const forward = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers, localAddress: "127.0.0.1" },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forward.on("error", () => outgoing.destroy());
    incoming.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * Plain HTTP from `localAddress`, answered as a fetch Response (no redirects followed). With
 * `viaPort` the socket goes to 127.0.0.1:viaPort (the proxy) while Host stays the URL's, as when a
 * public name points at the proxy.
 */
export function fetchFrom(localAddress: string, viaPort?: number): Fetcher {
  return (url, init = {}) =>
    new Promise<Response>((resolve, reject) => {
      const target = new URL(url);
      const headers: Record<string, string> = { host: target.host };
      new Headers(init.headers).forEach((value, name) => {
        headers[name] = value;
      });
      const body = typeof init.body === "string" ? init.body : undefined;
      if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
      const sent = httpRequest(
        {
          host: viaPort === undefined ? target.hostname : "127.0.0.1",
          port: viaPort ?? target.port,
          method: init.method ?? "GET",
          path: target.pathname + target.search,
          headers,
          localAddress,
        },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on("data", (chunk: Buffer) => chunks.push(chunk));
          answer.on("end", () => {
            const responseHeaders = new Headers();
            for (const [name, value] of Object.entries(answer.headers)) {
              for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) responseHeaders.append(name, v);
            }
            const status = answer.statusCode ?? 502;
            resolve(new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), { status, headers: responseHeaders }));
          });
          answer.on("error", reject);
        },
      );
      sent.on("error", reject);
      sent.end(body);
    });
}
