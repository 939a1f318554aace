import type { ServerResponse } from "node:http";
import type { Server as NetServer } from "node:net";
import type { Duplex } from "node:stream";

/**
 * How errand's loopback proxies (the session's egress proxy and the browser-wide refusing proxy)
 * listen and answer what they refuse: one home for both.
 */

/** Listens on 127.0.0.1 on a port the system picks, and returns that port. */
export async function listenOnLoopback(server: Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  return typeof address === "object" && address !== null ? address.port : 0;
}

/** A plain-text answer to a forwarded request, closing the connection. */
export function plainReply(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", connection: "close" });
  res.end(body);
}

/** A plain-text answer written straight to a socket (a CONNECT or upgrade that is refused), closing it. */
export function rawReply(socket: Duplex, status: number, body: string): void {
  const text = { 400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway" }[status] ?? "Error";
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** The part of a net or http server listenOnLoopback needs. */
interface Server {
  once(event: "error", listener: (error: Error) => void): unknown;
  listen(port: number, host: string, callback: () => void): unknown;
  address(): ReturnType<NetServer["address"]>;
}
