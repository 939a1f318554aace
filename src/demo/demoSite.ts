import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** The password the demo's own environment variable holds; the site accepts only this one. */
export const DEMO_PASSWORD = "demo-pass-4821";

const page = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><main>${body}</main></body></html>`;

/**
 * A two-page site for the demo: a status page to read, and a settings form behind a password that
 * saves a display name. Served on 127.0.0.1 only, on a free port, until close() is called.
 */
export async function startDemoSite(): Promise<{ origin: string; hostPort: string; savedNames: string[]; close(): Promise<void> }> {
  const savedNames: string[] = [];
  let displayName = "Ada";
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://demo");
    const html = (status: number, body: string): void => void res.writeHead(status, { "content-type": "text/html; charset=utf-8" }).end(body);
    if (req.method === "GET" && url.pathname === "/") {
      return html(200, page("Errand demo", `<h1 id="title">Library account</h1><p id="status">Status: all 3 books returned</p><p id="owner" data-plan="free">Display name: ${displayName}</p><a href="/settings">Settings</a>`));
    }
    if (req.method === "GET" && url.pathname === "/settings") {
      return html(200, page("Settings", `<form method="post" action="/settings"><label>Display name <input id="display-name" name="name"></label><label>Password <input id="password" name="password" type="password"></label><button id="save" type="submit">Save</button></form>`));
    }
    if (req.method === "POST" && url.pathname === "/settings") {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
      req.on("end", () => {
        const form = new URLSearchParams(body);
        if (form.get("password") !== DEMO_PASSWORD) return html(403, page("Denied", `<p id="result">Wrong password</p>`));
        displayName = (form.get("name") ?? "").replace(/[<>&"]/g, "").slice(0, 60);
        savedNames.push(displayName);
        res.writeHead(303, { location: "/saved" }).end();
        return undefined;
      });
      return;
    }
    if (req.method === "GET" && url.pathname === "/saved") {
      return html(200, page("Saved", `<p id="result">Saved. Display name is now ${displayName}.</p>`));
    }
    html(404, page("Not found", "<p>Not found</p>"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    savedNames,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
