import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context } from "hono";
import type { TrustedProxies } from "./clientAddress.js";
import { addressKey, parseTrustedProxies, resolveClientAddress } from "./clientAddress.js";

/** The only Node-specific piece of the HTTP layer: a listening socket that hands requests to a fetch handler. */
export interface NodeListener {
  /** The port actually bound (useful with port 0). */
  port: number;
  /** Serve requests with this handler from now on (before it is set, requests get 503). */
  setHandler(handler: (request: Request, env: unknown) => Response | Promise<Response>): void;
  close(): Promise<void>;
}

export function listenNode(options: { host: string; port: number }): Promise<NodeListener> {
  let handler: ((request: Request, env: unknown) => Response | Promise<Response>) | undefined;
  const server = createAdaptorServer({
    fetch: (request, env) => (handler === undefined ? new Response('{"ok":false}', { status: 503 }) : handler(request, env)),
    hostname: options.host,
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      const address = server.address() as AddressInfo;
      resolve({
        port: address.port,
        setHandler(next) {
          handler = next;
        },
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            if ("closeAllConnections" in server) server.closeAllConnections();
          }),
      });
    });
  });
}

/**
 * Reads the client's address of a request served by listenNode ("unknown" elsewhere): the socket's
 * peer, or X-Forwarded-For when that peer is a trusted proxy; as the key limits count under.
 */
export function nodeClientAddressReader(trusted: TrustedProxies): (c: Context) => string {
  return (c) => {
    let peer: string;
    try {
      peer = getConnInfo(c).remote.address ?? "unknown";
    } catch {
      return "unknown";
    }
    return addressKey(resolveClientAddress(peer, c.req.header("x-forwarded-for"), trusted));
  };
}

/** The socket's peer address, with no proxy trusted. */
export const nodeClientAddress = nodeClientAddressReader(parseTrustedProxies(undefined));

/** The socket peer of a request served by listenNode, from the env @hono/node-server hands the handler; undefined elsewhere. */
export function nodePeerAddress(env: unknown): string | undefined {
  if (typeof env !== "object" || env === null || !("incoming" in env)) return undefined;
  const incoming = env.incoming;
  if (typeof incoming !== "object" || incoming === null || !("socket" in incoming)) return undefined;
  const address = (incoming as { socket: { remoteAddress?: unknown } | null }).socket?.remoteAddress;
  return typeof address === "string" ? address : undefined;
}
