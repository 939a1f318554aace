import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** The password the demo declares as a secret bound to the demo site; the site accepts only this one. */
export const DEMO_PASSWORD = "demo-pass-4821";

const page = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><main>${body}</main></body></html>`;

export interface DemoSite {
  origin: string;
  hostPort: string;
  savedNames: string[];
  /** The same pages on another port (another origin), as a phishing copy would be; counts every request it receives. */
  lookalike: { origin: string; hostPort: string; requests: string[] };
  close(): Promise<void>;
}

/**
 * A two-page site for the demo: a status page to read, and a settings form behind a password that
 * saves a display name. Served on 127.0.0.1 only, on a free port, until close() is called; a
 * look-alike copy listens on a second port.
 */
export async function startDemoSite(): Promise<DemoSite> {
  const savedNames: string[] = [];
  let displayName = "Ada";
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://demo");
    const html = (status: number, body: string): void => void res.writeHead(status, { "content-type": "text/html; charset=utf-8" }).end(body);
    if (req.method === "GET" && url.pathname === "/") {
      return html(
        200,
        page(
          "Errand demo",
          `<h1 id="title">Library account</h1><p id="status">Status: all 3 books returned</p><p id="owner" data-plan="free">Display name: ${displayName}</p><a href="/settings">Settings</a>`,
        ),
      );
    }
    if (req.method === "GET" && url.pathname === "/settings") {
      return html(
        200,
        page(
          "Settings",
          `<form method="post" action="/settings"><label>Display name <input id="display-name" name="name"></label><label>Password <input id="password" name="password" type="password"></label><button id="save" type="submit">Save</button></form>`,
        ),
      );
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
  const requests: string[] = [];
  const lookalike = createServer((req, res) => {
    requests.push(`${req.method ?? "GET"} ${req.url ?? "/"}`);
    server.emit("request", req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  await new Promise<void>((resolve) => lookalike.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const lookalikePort = (lookalike.address() as AddressInfo).port;
  const stop = (s: typeof server) =>
    new Promise<void>((resolve) => {
      s.closeAllConnections();
      s.close(() => resolve());
    });
  return {
    origin: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    savedNames,
    lookalike: { origin: `http://127.0.0.1:${lookalikePort}`, hostPort: `127.0.0.1:${lookalikePort}`, requests },
    close: async () => {
      await stop(lookalike);
      await stop(server);
    },
  };
}
