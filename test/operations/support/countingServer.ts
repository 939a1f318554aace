// A loopback HTTP server that counts the requests it receives, per method and path. Not a test file.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface CountingServer {
  origin: string;
  /** Requests seen for this method and path. */
  count(method: string, path: string): number;
  /** Every path seen with this method and how often. */
  counts(method: string): Map<string, number>;
  /** Resolves when a request for this method and path has arrived. */
  waitFor(method: string, path: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startCountingServer(): Promise<CountingServer> {
  const seen = new Map<string, number>();
  const waiters: { key: string; resolve: () => void }[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const key = `${req.method ?? "GET"} ${(req.url ?? "/").split("?")[0] ?? "/"}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
      for (const waiter of waiters.filter((w) => w.key === key)) waiter.resolve();
      res.writeHead(200, { "content-type": "text/plain", connection: "close" }).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    count: (method, path) => seen.get(`${method} ${path}`) ?? 0,
    counts(method) {
      const result = new Map<string, number>();
      for (const [key, n] of seen) if (key.startsWith(`${method} `)) result.set(key.slice(method.length + 1), n);
      return result;
    },
    waitFor(method, path, timeoutMs = 20_000) {
      const key = `${method} ${path}`;
      if ((seen.get(key) ?? 0) > 0) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${key} within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({ key, resolve: () => (clearTimeout(timer), resolve()) });
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
