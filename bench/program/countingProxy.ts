import { createServer, connect } from "node:net";
import type { AddressInfo, Server, Socket } from "node:net";

/** What crossed the proxy from errand to the provider. */
export interface ProxyCounts {
  /** HTTP requests errand sent (a program is one POST; a CDP session's upgrade is one GET). */
  httpRequests: number;
  /** WebSocket frames errand sent after an upgrade: one per CDP command, each answered by the browser. */
  webSocketFrames: number;
}

/**
 * A TCP proxy in front of the provider that counts what errand sends: HTTP request lines, and after
 * a WebSocket upgrade the client's frames (read from their headers, never their payload's meaning).
 * That is the number of round trips a mode costs: a program is one request, a CDP session one
 * frame per command. `oneWayDelayMs` holds every chunk that long in each direction (same-delay
 * timers fire in order), standing in for the network between errand and a cloud provider.
 */
export async function startCountingProxy(
  target: { host: string; port: number },
  oneWayDelayMs = 0,
): Promise<{ port: number; counts(): ProxyCounts; reset(): void; close(): Promise<void> }> {
  let counts: ProxyCounts = { httpRequests: 0, webSocketFrames: 0 };
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    const upstream = connect(target.port, target.host);
    sockets.add(upstream);
    let upgraded = false;
    let pending: Buffer = Buffer.alloc(0);
    const later = (write: () => void) => (oneWayDelayMs === 0 ? write() : void setTimeout(write, oneWayDelayMs));
    client.on("data", (chunk: Buffer) => {
      later(() => upstream.write(chunk));
      if (!upgraded) {
        const text = chunk.toString("latin1");
        counts.httpRequests += (text.match(/^(GET|POST|PUT|DELETE) \S+ HTTP\/1\.1\r$/gm) ?? []).length;
        if (/\r\nupgrade: websocket\r\n/i.test(text)) {
          upgraded = true;
          const end = text.indexOf("\r\n\r\n");
          pending = chunk.subarray(end + 4);
        }
        return;
      }
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const size = frameSize(pending);
        if (size === null || pending.length < size) break;
        if (((pending[0] ?? 0) & 0x80) !== 0) counts.webSocketFrames += 1;
        pending = pending.subarray(size);
      }
    });
    upstream.on("data", (chunk: Buffer) => later(() => client.write(chunk)));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("close", end).on("error", end);
    upstream.on("close", end).on("error", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    counts: () => ({ ...counts }),
    reset: () => {
      counts = { httpRequests: 0, webSocketFrames: 0 };
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A client frame's whole size from its header (RFC 6455 5.2), or null while the header is incomplete. */
function frameSize(buffer: Buffer): number | null {
  if (buffer.length < 2) return null;
  const second = buffer[1] ?? 0;
  const masked = (second & 0x80) !== 0 ? 4 : 0;
  const length = second & 0x7f;
  if (length < 126) return 2 + masked + length;
  if (length === 126) return buffer.length < 4 ? null : 4 + masked + buffer.readUInt16BE(2);
  return buffer.length < 10 ? null : 10 + masked + Number(buffer.readBigUInt64BE(2));
}
