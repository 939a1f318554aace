import { createServer } from "node:net";
import type { Socket } from "node:net";
import { listenOnLoopback, rawReply } from "./proxyReplies.js";

/** What Chromium tried to send outside any task's context, and was refused. */
export interface RefusedBackgroundRequest {
  at: string;
  /** The request line as sent to the proxy ("CONNECT update.googleapis.com:443 HTTP/1.1"), cut at 200 characters. */
  requestLine: string;
}

export interface RefusingProxy {
  /** `http://127.0.0.1:PORT`, for the browser-wide `--proxy-server`. */
  readonly url: string;
  /** Everything refused so far (at most the first 100), oldest first. */
  refused(): RefusedBackgroundRequest[];
  close(): Promise<void>;
}

/** How many refusals are kept; the browser's background checks repeat, the first ones say enough. */
const MAX_RECORDS = 100;

/**
 * The browser-wide proxy of the local Chromium: it answers every request and tunnel with 403 and
 * forwards nothing. Task contexts have their own egress proxy; only what Chromium sends outside any
 * task's context (component and extension update checks, account checks, anything a future build
 * adds) ends up here, so it never reaches the network, and the browser resolves no name for it.
 */
export async function startRefusingProxy(onRefused?: (request: RefusedBackgroundRequest) => void): Promise<RefusingProxy> {
  const records: RefusedBackgroundRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    let head = "";
    socket.on("data", (chunk: Buffer) => {
      head += chunk.toString("latin1");
      if (!head.includes("\r\n\r\n") && head.length < 8192) return;
      const record = { at: new Date().toISOString(), requestLine: (head.split("\r\n")[0] ?? "").slice(0, 200) };
      if (records.length < MAX_RECORDS) records.push(record);
      onRefused?.(record);
      rawReply(socket, 403, "");
      socket.removeAllListeners("data");
    });
  });
  const port = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}`,
    refused: () => records.map((r) => ({ ...r })),
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
