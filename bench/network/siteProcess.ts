// The bench's site, in its own process (as a real site would be: it must not share the event loop of
// the errand process that runs the egress proxy). Serves a page with 50 same-site subresources on
// 127.0.0.1, tells the parent where and what it serves, and answers its "hits" message with the number
// of requests and TCP connections seen so far. Started by network.ts with fork(); does nothing when run otherwise.
import { startRecordingServer } from "../../test/fixtures/fixtureSite.js";

const IMAGES = 20;
const SCRIPTS = 15;
const STYLESHEETS = 15;

const svg = (i: number): string =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64" fill="#${((i * 40503) % 0xffffff).toString(16).padStart(6, "0")}"/><text x="8" y="40">${i}</text>${"<!-- padding -->".repeat(60)}</svg>`;
const script = (i: number): string => `window.__loaded = (window.__loaded || 0) + 1; window.__s${i} = ${JSON.stringify("x".repeat(1500))}.length;\n`;
const stylesheet = (i: number): string =>
  `.c${i} { color: #${((i * 111111) % 0xffffff).toString(16).padStart(6, "0")}; margin: ${i}px; }\n${"/* padding */\n".repeat(100)}`;

function pageHtml(): string {
  const images = Array.from({ length: IMAGES }, (_, i) => `<img src="/img/${i}.svg" width="64" height="64" alt="">`).join("");
  const scripts = Array.from({ length: SCRIPTS }, (_, i) => `<script src="/js/${i}.js"></script>`).join("");
  const styles = Array.from({ length: STYLESHEETS }, (_, i) => `<link rel="stylesheet" href="/css/${i}.css">`).join("");
  return `<!doctype html><html><head><meta charset="utf-8"><title>Fifty</title><link rel="icon" href="data:,">${styles}</head><body><h1 id="title">fifty subresources</h1>${images}${scripts}</body></html>`;
}

if (process.send !== undefined) {
  const html = pageHtml();
  const site = await startRecordingServer(
    "127.0.0.1",
    { "/": (_req, res) => void res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(html) },
    (req, res) => {
      const m = /^\/(img|js|css)\/(\d+)\.(svg|js|css)$/.exec((req.url ?? "/").split("?")[0] ?? "/");
      if (m === null) return void res.writeHead(404).end();
      const i = Number(m[2]);
      const [type, body] = m[1] === "img" ? ["image/svg+xml", svg(i)] : m[1] === "js" ? ["text/javascript", script(i)] : ["text/css", stylesheet(i)];
      res.writeHead(200, { "content-type": type, "cache-control": "no-store" }).end(body);
    },
  );
  process.on("message", (message) => {
    if (message === "hits") process.send?.({ hits: site.hits.length, connections: site.connections() });
  });
  process.on("disconnect", () => void site.close().then(() => process.exit(0)));
  process.send({ port: site.port, origin: site.origin, images: IMAGES, scripts: SCRIPTS, stylesheets: STYLESHEETS });
}
