import { createServer } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface LocalSite {
  origin: string;
  hostPort: string;
  close(): Promise<void>;
}

/** Answers with one small HTML page, uncached, as a plain site would; true, so a route can return it. */
export type HtmlAnswer = (body: string, title: string) => true;

/**
 * A bench site on 127.0.0.1: `route` answers what it knows (returning true) and everything else is a
 * 404, so each bench writes only its pages.
 */
export async function serveLocalSite(route: (req: IncomingMessage, res: ServerResponse, url: URL, html: HtmlAnswer) => boolean): Promise<LocalSite> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://site");
    const html: HtmlAnswer = (body, title) => {
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" })
        .end(
          `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title><link rel="icon" href="data:,"></head><body><main>${body}</main></body></html>`,
        );
      return true;
    };
    if (!route(req, res, url, html)) res.writeHead(404, { "content-type": "text/plain" }).end("not found");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
