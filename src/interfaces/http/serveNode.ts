import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context } from "hono";

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

/** The peer address of a request served by listenNode ("unknown" elsewhere). */
export function nodeClientAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? "unknown";
  } catch {
    return "unknown";
  }
}
