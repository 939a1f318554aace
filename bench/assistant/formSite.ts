import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface FormSite {
  origin: string;
  hostPort: string;
  /** Every name the form received, in order: each side's task must add exactly its own. */
  received: string[];
  close(): Promise<void>;
}

const page = (title: string, body: string) => `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title><link rel="icon" href="data:,"></head><body><main>${body}</main></body></html>`;

/**
 * A one-form site on 127.0.0.1 for bench/assistant: GET /form shows a name field and a Send button;
 * POST /submit records the name and answers 303 to /thanks, which says "Thanks, NAME.".
 */
export async function startFormSite(): Promise<FormSite> {
  const received: string[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://form");
    const html = (body: string, title: string) => void res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(page(title, body));
    if (req.method === "GET" && url.pathname === "/form") {
      return html(`<h1>Contact</h1><form method="post" action="/submit"><label>Name <input id="name" name="name"></label><button id="send" type="submit">Send</button></form>`, "Form");
    }
    if (req.method === "POST" && url.pathname === "/submit") {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
      req.on("end", () => {
        const name = (new URLSearchParams(body).get("name") ?? "").replace(/[^A-Za-z0-9 -]/g, "").slice(0, 40);
        received.push(name);
        res.writeHead(303, { location: `/thanks?name=${encodeURIComponent(name)}` }).end();
      });
      return undefined;
    }
    if (req.method === "GET" && url.pathname === "/thanks") {
      return html(`<p id="result">Thanks, ${(url.searchParams.get("name") ?? "").replace(/[^A-Za-z0-9 -]/g, "")}.</p>`, "Thanks");
    }
    res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    return undefined;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
