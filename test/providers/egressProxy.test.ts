import { after, afterEach, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createServer, request } from "node:http";
import type { IncomingHttpHeaders, Server } from "node:http";
import { connect, createServer as createTcpServer } from "node:net";
import type { AddressInfo, Server as TcpServer, Socket } from "node:net";
import { preflightUrl } from "../../src/policy/preflightUrl.js";
import type { Resolver, ResolveResult } from "../../src/policy/resolver.js";
import { createStaticResolver } from "../../src/policy/staticResolver.js";
import { startEgressProxy } from "../../src/providers/local/egressProxy.js";
import type { EgressProxy, EgressProxyOptions } from "../../src/providers/local/egressProxy.js";

/**
 * The egress proxy against real sockets on loopback. A "private service" listener counts every TCP
 * connection it receives: whenever the policy refuses, that count must stay zero. Allowed traffic only
 * ever goes to loopback fixtures admitted by an operator allowance: no test dials anything else.
 */

type CountingServer = { server: TcpServer; port: number; connections: number; sockets: Set<Socket> };

async function countingListener(host: string, port = 0, onSocket?: (socket: Socket) => void): Promise<CountingServer> {
  const state: CountingServer = { server: createTcpServer(), port: 0, connections: 0, sockets: new Set() };
  state.server.on("connection", (socket) => {
    state.connections++;
    state.sockets.add(socket);
    socket.on("close", () => state.sockets.delete(socket));
    socket.on("error", () => undefined);
    if (onSocket !== undefined) onSocket(socket);
    else socket.end("HTTP/1.1 200 OK\r\nContent-Length: 6\r\nConnection: close\r\n\r\nSECRET");
  });
  await new Promise<void>((resolve) => state.server.listen(port, host, resolve));
  state.port = (state.server.address() as AddressInfo).port;
  return state;
}

async function closeTcp(state: CountingServer): Promise<void> {
  for (const socket of state.sockets) socket.destroy();
  await new Promise((resolve) => state.server.close(resolve));
}

type Answer = { status: number; headers: IncomingHttpHeaders; body: Buffer };

/** A plain forward request through the proxy (absolute-form request line, as browsers send). */
function viaProxy(proxy: EgressProxy, url: string, init: { method?: string; headers?: Record<string, string>; body?: Buffer } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: proxy.port, method: init.method ?? "GET", path: url, headers: init.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end(init.body);
  });
}

/** Opens a CONNECT tunnel; resolves with the proxy's status line and the socket (left open when 200). */
function tunnel(
  proxy: EgressProxy,
  authority: string,
  head = Buffer.alloc(0),
  headers = "",
): Promise<{ status: number; socket: Socket; rest: Buffer; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(proxy.port, "127.0.0.1");
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf("\r\n\r\n");
      if (end < 0) return;
      socket.off("data", onData);
      const text = buffered.subarray(0, end).toString("latin1");
      const rest = buffered.subarray(end + 4);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      if (status !== 200) {
        const more: Buffer[] = [rest];
        socket.on("data", (c: Buffer) => more.push(c));
        socket.on("close", () => resolve({ status, socket, rest: Buffer.concat(more), text }));
      } else {
        resolve({ status, socket, rest, text });
      }
    };
    socket.on("data", onData);
    socket.on("error", reject);
    socket.write(Buffer.concat([Buffer.from(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${headers}\r\n`), head]));
  });
}

function readExactly(socket: Socket, length: number, already: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let got = already;
    if (got.length >= length) return resolve(got);
    socket.on("data", (chunk: Buffer) => {
      got = Buffer.concat([got, chunk]);
      if (got.length >= length) resolve(got);
    });
    socket.on("error", reject);
    socket.on("close", () => (got.length >= length ? resolve(got) : reject(new Error(`closed after ${got.length} bytes`))));
  });
}

/** A resolver that answers from a script, one answer per call, and counts its calls. */
function scriptedResolver(answers: ResolveResult[]): Resolver & { calls: number } {
  const resolver = {
    name: "scripted",
    calls: 0,
    resolve(): Promise<ResolveResult> {
      const answer = answers[Math.min(resolver.calls, answers.length - 1)] ?? { error: "nxdomain" as const };
      resolver.calls++;
      return Promise.resolve(answer);
    },
  };
  return resolver;
}

let privateService: CountingServer;
let echo: CountingServer;
let site: Server;
let sitePort: number;
/** TCP connections the fixture site has received, and those still open. */
let siteConnections = 0;
const siteSockets = new Set<Socket>();
let received: { method: string; url: string; headers: IncomingHttpHeaders; body: Buffer }[] = [];
const BINARY = Buffer.from(Array.from({ length: 256 * 64 }, (_, i) => i % 256));
let proxies: EgressProxy[] = [];

async function start(options: Partial<EgressProxyOptions> & { resolver: Resolver }): Promise<EgressProxy> {
  const proxy = await startEgressProxy({ connectTimeoutMs: 2_000, ...options });
  proxies.push(proxy);
  return proxy;
}

before(async () => {
  privateService = await countingListener("127.0.0.1");
  echo = await countingListener("127.0.0.1", 0, (socket) => socket.pipe(socket));
  site = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(200, { "content-type": "application/octet-stream", "x-fixture": "yes" });
      res.end(req.url === "/echo" ? Buffer.concat(chunks) : BINARY);
    });
  });
  site.on("upgrade", (req, socket) => {
    socket.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n");
    socket.pipe(socket);
  });
  site.on("connection", (socket: Socket) => {
    siteConnections++;
    siteSockets.add(socket);
    socket.on("close", () => siteSockets.delete(socket));
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  sitePort = (site.address() as AddressInfo).port;
});
after(async () => {
  await closeTcp(privateService);
  await closeTcp(echo);
  site.closeAllConnections();
  await new Promise((resolve) => site.close(resolve));
});
beforeEach(() => {
  privateService.connections = 0;
  received = [];
});
afterEach(async () => {
  await Promise.all(proxies.map((p) => p.close()));
  proxies = [];
});

describe("egress proxy: refusals never reach the private service", () => {
  test("refuses a plain http request to a name that resolves to a private address", async () => {
    const p = await start({ resolver: createStaticResolver({ "intranet.example": ["127.0.0.1"] }) });
    const answer = await viaProxy(p, `http://intranet.example:${privateService.port}/admin`);
    assert.equal(answer.status, 403);
    assert.match(answer.body.toString(), /port_blocked|dns_private_answer/);
    const ported = await start({
      resolver: createStaticResolver({ "intranet.example": ["127.0.0.1"] }),
      allowPrivate: [{ host: "127.0.0.2", port: privateService.port }],
    });
    const viaPort = await viaProxy(ported, `http://intranet.example:${privateService.port}/admin`);
    assert.equal(viaPort.status, 403);
    assert.match(viaPort.body.toString(), /dns_private_answer/);
    assert.equal(privateService.connections, 0);
    assert.deepEqual(
      ported.blocked().map((b) => [b.method, b.host, b.port, b.code]),
      [["GET", "intranet.example", privateService.port, "dns_private_answer"]],
    );
  });

  test("refuses a CONNECT tunnel to a name that resolves to a private address", async () => {
    const p = await start({
      resolver: createStaticResolver({ "intranet.example": ["10.0.0.1", "127.0.0.1"] }),
      allowPrivate: [{ host: "127.0.0.9", port: privateService.port }],
    });
    const result = await tunnel(p, `intranet.example:${privateService.port}`);
    assert.equal(result.status, 403);
    assert.equal(privateService.connections, 0);
    const [record] = p.blocked();
    assert.equal(record?.code, "dns_private_answer");
    assert.deepEqual(record?.addresses, [
      { ip: "10.0.0.1", verdict: "blocked:private" },
      { ip: "127.0.0.1", verdict: "blocked:loopback" },
    ]);
  });

  test("refuses literal private addresses, by plain http and by CONNECT, in any spelling", async () => {
    const p = await start({ resolver: createStaticResolver({}) });
    for (const host of ["127.0.0.1", "127.1", "0x7f000001", "2130706433"]) {
      assert.equal((await viaProxy(p, `http://${host}:${privateService.port}/`)).status, 403, host);
      assert.equal((await tunnel(p, `${host}:${privateService.port}`)).status, 403, host);
    }
    assert.equal((await tunnel(p, `[::ffff:127.0.0.1]:${privateService.port}`)).status, 403);
    assert.equal((await tunnel(p, `[::1]:${privateService.port}`)).status, 403);
    assert.equal(privateService.connections, 0);
    assert.ok(p.blocked().every((b) => b.code === "ip_blocked"));
    assert.deepEqual(p.stats(), { allowed: 0, blocked: 10 });
  });

  test("survives DNS rebinding: the preflight saw a public answer, the proxy sees the private one and refuses", async () => {
    const rebinding = scriptedResolver([{ addresses: ["93.184.215.14"] }, { addresses: ["127.0.0.1"] }]);
    const preflight = await preflightUrl(`https://rebind.example/`, { resolver: rebinding });
    assert.equal(preflight.verdict, "allow");
    const p = await start({ resolver: rebinding, allowPrivate: [{ host: "127.0.0.2", port: privateService.port }] });
    const result = await tunnel(p, `rebind.example:${privateService.port}`);
    assert.equal(result.status, 403);
    assert.equal(privateService.connections, 0);
    assert.equal(p.blocked()[0]?.code, "dns_private_answer");
  });

  test("refuses a name when any one answer is private, without dialing the public one", async () => {
    const mixed = scriptedResolver([{ addresses: ["93.184.215.14", "127.0.0.1"] }]);
    const p = await start({ resolver: mixed });
    assert.equal((await tunnel(p, "mixed.example:443")).status, 403);
    assert.equal((await viaProxy(p, "http://mixed.example/")).status, 403);
    assert.equal(p.stats().allowed, 0);
  });

  test("refuses names by name without asking DNS: localhost, metadata, single labels", async () => {
    const counting = scriptedResolver([{ addresses: ["127.0.0.1"] }]);
    const p = await start({ resolver: counting });
    for (const authority of [
      `localhost:${privateService.port}`,
      "metadata.google.internal:80",
      "LOCALHOST.:443",
      "instance-data:80",
      "intranet:443",
      `a.localhost:${privateService.port}`,
    ]) {
      const result = await tunnel(p, authority);
      assert.equal(result.status, 403, authority);
    }
    assert.equal((await viaProxy(p, "http://metadata.google.internal/computeMetadata/v1/")).status, 403);
    assert.equal(counting.calls, 0);
    assert.ok(p.blocked().every((b) => b.code === "name_blocked"));
    assert.equal(privateService.connections, 0);
  });

  test("refuses ports other than 80 and 443 to public names, and fails closed when DNS fails", async () => {
    const p = await start({ resolver: createStaticResolver({ "public.example": ["93.184.215.14"], "empty.example": [] }) });
    assert.equal((await tunnel(p, "public.example:22")).status, 403);
    assert.equal((await tunnel(p, "missing.example:443")).status, 403);
    assert.equal((await viaProxy(p, "http://empty.example/")).status, 403);
    assert.deepEqual(
      p.blocked().map((b) => b.code),
      ["port_blocked", "dns_failed", "dns_failed"],
    );
  });

  test("answers 400 to requests that are not proxy requests and logs them", async () => {
    const p = await start({ resolver: createStaticResolver({}) });
    assert.equal((await viaProxy(p, "/relative")).status, 400);
    assert.equal((await viaProxy(p, "https://public.example/")).status, 400);
    assert.equal((await viaProxy(p, "ftp://public.example/")).status, 400);
    assert.equal((await tunnel(p, "public.example")).status, 400);
    assert.equal((await tunnel(p, "::1:443")).status, 400);
    assert.equal((await tunnel(p, "user@public.example:443")).status, 400);
    assert.ok(p.blocked().every((b) => b.code === "invalid_url"));
  });

  test("refuses a protocol upgrade sent as a plain forward request to a private destination", async () => {
    const p = await start({ resolver: createStaticResolver({ "ws.example": ["127.0.0.1"] }) });
    const socket = connect(p.port, "127.0.0.1");
    socket.write(`GET ws://ws.example:${privateService.port}/ HTTP/1.1\r\nHost: ws.example\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n`);
    const reply = await readExactly(socket, 12, Buffer.alloc(0));
    assert.match(reply.toString(), /^HTTP\/1\.1 403/);
    socket.destroy();
    assert.equal(privateService.connections, 0);
  });

  test("refuses this machine's own public addresses, which reach services bound to 0.0.0.0", async () => {
    const p = await start({ resolver: createStaticResolver({ "self.example": ["93.184.215.14"] }), localAddresses: () => ["93.184.215.14"] });
    assert.equal((await tunnel(p, "self.example:443")).status, 403);
    assert.equal((await viaProxy(p, "http://93.184.215.14/")).status, 403);
    assert.deepEqual(
      p.blocked().map((b) => [b.code, b.reason]),
      [
        ["ip_blocked", "93.184.215.14 is an address of this machine"],
        ["ip_blocked", "93.184.215.14 is an address of this machine"],
      ],
    );
    assert.equal(p.stats().allowed, 0);
  });

  test("reports each block to onBlocked as it happens", async () => {
    const seen: string[] = [];
    const p = await start({ resolver: createStaticResolver({}), onBlocked: (r) => seen.push(`${r.host}:${r.port} ${r.code}`) });
    await tunnel(p, "169.254.169.254:80");
    assert.deepEqual(seen, ["169.254.169.254:80 ip_blocked"]);
  });
});

describe("egress proxy: allowed destinations pass through unchanged", () => {
  test("forwards plain http byte for byte, request body included, without proxy headers", async () => {
    const p = await start({ resolver: createStaticResolver({}), allowPrivate: [{ host: "127.0.0.1", port: sitePort }] });
    const got = await viaProxy(p, `http://127.0.0.1:${sitePort}/file?x=1`, {
      headers: { "x-custom": "kept", "proxy-authorization": "Basic c2VjcmV0", "proxy-connection": "keep-alive" },
    });
    assert.equal(got.status, 200);
    assert.equal(got.headers["x-fixture"], "yes");
    assert.ok(got.body.equals(BINARY));
    const body = randomBytes(100_000);
    const echoed = await viaProxy(p, `http://127.0.0.1:${sitePort}/echo`, { method: "POST", body, headers: { "content-type": "application/octet-stream" } });
    assert.ok(echoed.body.equals(body));
    assert.equal(received[0]?.url, "/file?x=1");
    assert.equal(received[0]?.headers["x-custom"], "kept");
    assert.equal(received[0]?.headers["proxy-authorization"], undefined);
    assert.equal(received[0]?.headers["proxy-connection"], undefined);
    assert.equal(received[0]?.headers.host, `127.0.0.1:${sitePort}`);
    assert.equal(received[1]?.method, "POST");
    assert.deepEqual(p.stats(), { allowed: 2, blocked: 0 });
  });

  test("tunnels CONNECT byte for byte, including bytes sent along with the CONNECT request", async () => {
    const p = await start({ resolver: createStaticResolver({}), allowPrivate: [{ host: "127.0.0.1", port: echo.port }] });
    const head = randomBytes(1_000);
    const opened = await tunnel(p, `127.0.0.1:${echo.port}`, head);
    assert.equal(opened.status, 200);
    const payload = randomBytes(300_000);
    opened.socket.write(payload);
    const back = await readExactly(opened.socket, head.length + payload.length, opened.rest);
    assert.ok(back.equals(Buffer.concat([head, payload])));
    opened.socket.destroy();
  });

  test("dials the address it checked: one lookup per connection, the name is never resolved again", async () => {
    const other = await countingListener("127.0.0.2", echo.port, (socket) => socket.pipe(socket)).catch(() => null);
    // A name allowance admits whatever the name resolves to, so the second answer is a failure: the
    // point is that each connection is resolved once, and the second is not served from the first.
    const rebinding = scriptedResolver([{ addresses: ["127.0.0.1"] }, { error: "nxdomain" }]);
    const p = await start({ resolver: rebinding, allowPrivate: [{ host: "fixture.test", port: echo.port }] });
    const before = echo.connections;
    const first = await tunnel(p, `fixture.test:${echo.port}`);
    assert.equal(first.status, 200);
    first.socket.write("ping");
    assert.equal((await readExactly(first.socket, 4, first.rest)).toString(), "ping");
    first.socket.destroy();
    assert.equal(echo.connections, before + 1);
    const second = await tunnel(p, `fixture.test:${echo.port}`);
    assert.equal(second.status, 403);
    assert.equal(rebinding.calls, 2);
    if (other !== null) {
      assert.equal(other.connections, 0);
      await closeTcp(other);
    }
  });

  test("admits a name allowance on its port only", async () => {
    const p = await start({ resolver: createStaticResolver({ "fixture.test": ["127.0.0.1"] }), allowPrivate: [{ host: "fixture.test", port: sitePort }] });
    assert.equal((await viaProxy(p, `http://fixture.test:${sitePort}/file`)).status, 200);
    assert.equal((await viaProxy(p, `http://fixture.test:${privateService.port}/`)).status, 403);
    assert.equal(received[0]?.headers.host, `fixture.test:${sitePort}`);
    assert.equal(privateService.connections, 0);
  });

  test("holds a browser's tunnel to a host the task does not name until the guard lets a request there through; refuses it when the guard stops the navigation or nobody asks", async () => {
    const host = await countingListener("127.0.0.1");
    try {
      const callers = { username: "errand", password: "pw" };
      const resolver = createStaticResolver({ "cdn.test": ["127.0.0.1"], "task.test": ["127.0.0.1"], "nav.test": ["127.0.0.1"], "idle.test": ["127.0.0.1"] });
      const allowPrivate = ["cdn.test", "task.test", "nav.test", "idle.test"].map((name) => ({ host: name, port: host.port }));
      const p = await start({ resolver, allowPrivate, callers, holdTunnels: { preadmitted: (name) => name === "task.test", holdMs: 400 } });
      const browser = "User-Agent: Chromium\r\n";
      // The task's own host is never held.
      const own = await tunnel(p, `task.test:${host.port}`, Buffer.alloc(0), browser);
      assert.equal(own.status, 200);
      own.socket.destroy();
      // Another host waits, without a connection, until the guard admits it.
      const cdn = tunnel(p, `cdn.test:${host.port}`, Buffer.alloc(0), browser);
      await new Promise((resolve) => setTimeout(resolve, 150));
      assert.equal(host.connections, 1, "a held tunnel was dialed before the guard judged a request");
      p.admit("cdn.test", host.port);
      const admitted = await cdn;
      assert.equal(admitted.status, 200);
      admitted.socket.destroy();
      // A navigation the guard stopped: its held tunnel is refused at once, nothing dialed.
      const nav = tunnel(p, `nav.test:${host.port}`, Buffer.alloc(0), browser);
      await new Promise((resolve) => setTimeout(resolve, 100));
      p.dismiss("nav.test", host.port, "navigation_blocked", "test: the guard stopped the navigation");
      assert.equal((await nav).status, 403);
      // Nobody asks: refused after holdMs. errand's own (the credential) is never held.
      assert.equal((await tunnel(p, `idle.test:${host.port}`, Buffer.alloc(0), browser)).status, 403);
      const errand = await tunnel(
        p,
        `idle.test:${host.port}`,
        Buffer.alloc(0),
        `Proxy-Authorization: Basic ${Buffer.from("errand:pw").toString("base64")}\r\n`,
      );
      assert.equal(errand.status, 200);
      errand.socket.destroy();
      assert.equal(host.connections, 3, "only the task's host, the admitted host and errand's own tunnel were dialed");
      assert.deepEqual(
        p.blocked().map((b) => [b.host, b.code]),
        [
          ["nav.test", "navigation_blocked"],
          ["idle.test", "preconnect_blocked"],
        ],
      );
    } finally {
      await closeTcp(host);
    }
  });

  test("passes a protocol upgrade sent as a plain forward request, then carries its bytes", async () => {
    const p = await start({ resolver: createStaticResolver({}), allowPrivate: [{ host: "127.0.0.1", port: sitePort }] });
    const socket = connect(p.port, "127.0.0.1");
    socket.write(
      `GET ws://127.0.0.1:${sitePort}/socket HTTP/1.1\r\nHost: 127.0.0.1:${sitePort}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nProxy-Authorization: Basic c2VjcmV0\r\n\r\n`,
    );
    const head = await readExactly(socket, 1, Buffer.alloc(0));
    assert.match(head.toString(), /^HTTP\/1\.1 101/);
    const end = head.indexOf("\r\n\r\n") + 4;
    socket.write("frame-bytes");
    const back = await readExactly(socket, end + "frame-bytes".length, head);
    assert.equal(back.subarray(end).toString(), "frame-bytes");
    socket.destroy();
  });

  test("reuses upstream connections for plain http, and close() ends the idle ones", async () => {
    const p = await start({ resolver: createStaticResolver({}), allowPrivate: [{ host: "127.0.0.1", port: sitePort }] });
    const before = siteConnections;
    for (let i = 0; i < 5; i++) {
      const got = await viaProxy(p, `http://127.0.0.1:${sitePort}/file?i=${i}`);
      assert.equal(got.status, 200);
      assert.ok(got.body.equals(BINARY));
    }
    const body = randomBytes(50_000);
    assert.ok((await viaProxy(p, `http://127.0.0.1:${sitePort}/echo`, { method: "POST", body })).body.equals(body));
    assert.equal((await viaProxy(p, `http://127.0.0.1:${sitePort}/file`, { method: "HEAD" })).status, 200);
    assert.equal(received.length, 7);
    assert.equal(siteConnections - before, 1, "seven requests one after another share one upstream connection");
    assert.deepEqual(p.stats(), { allowed: 7, blocked: 0 });
    assert.ok(siteSockets.size >= 1, "the idle upstream connection is kept open");
    await p.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(siteSockets.size, 0, "close() ended the idle upstream connection");
  });

  test("a pooled connection never carries a request to a destination that has become refused", async () => {
    const other = await countingListener("127.0.0.2", sitePort).catch(() => null);
    // The same name: public-ish (admitted) first, then rebound to a private address, then back.
    // (A name allowance admits whatever the name resolves to, so "refused" is a failed lookup here.)
    const rebinding = scriptedResolver([{ addresses: ["127.0.0.1"] }, { error: "nxdomain" }, { addresses: ["127.0.0.1"] }]);
    try {
      const p = await start({ resolver: rebinding, allowPrivate: [{ host: "swap.test", port: sitePort }] });
      const before = siteConnections;
      assert.equal((await viaProxy(p, `http://swap.test:${sitePort}/file`)).status, 200);
      const refused = await viaProxy(p, `http://swap.test:${sitePort}/file`);
      assert.equal(refused.status, 403, "the idle connection to the old address did not carry it");
      assert.match(refused.body.toString(), /dns_failed/);
      assert.equal(received.length, 1, "the site saw only the allowed request");
      assert.equal((await viaProxy(p, `http://swap.test:${sitePort}/file`)).status, 200, "checked again and allowed: reused");
      assert.equal(siteConnections - before, 1);
      assert.equal(rebinding.calls, 3, "every request was resolved and checked again");
      assert.equal(other?.connections ?? 0, 0);
    } finally {
      if (other !== null) await closeTcp(other);
    }

    // Same address and port as a pooled socket, but a name the policy does not admit: refused, not reused.
    const named = await start({
      resolver: createStaticResolver({ "fixture.test": ["127.0.0.1"], "other.test": ["127.0.0.1"] }),
      allowPrivate: [{ host: "fixture.test", port: sitePort }],
    });
    assert.equal((await viaProxy(named, `http://fixture.test:${sitePort}/file`)).status, 200);
    assert.equal((await viaProxy(named, `http://other.test:${sitePort}/file`)).status, 403);
    assert.equal(received.length, 3);
    assert.deepEqual(
      received.map((r) => r.headers.host),
      [`swap.test:${sitePort}`, `swap.test:${sitePort}`, `fixture.test:${sitePort}`],
    );
    assert.equal(privateService.connections, 0);
  });

  test("ends open tunnels on close()", async () => {
    const p = await start({ resolver: createStaticResolver({}), allowPrivate: [{ host: "127.0.0.1", port: echo.port }] });
    const opened = await tunnel(p, `127.0.0.1:${echo.port}`);
    assert.equal(opened.status, 200);
    const closed = new Promise((resolve) => opened.socket.on("close", resolve));
    await p.close();
    await closed;
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(echo.sockets.size, 0, "the upstream side was closed too");
  });
});

describe("egress proxy started before its task (scopeLater)", () => {
  test("refuses everything, plain and tunnelled, until scopeTo; those refusals are nobody's evidence; then it serves exactly the scope it was given, once", async () => {
    const siteBefore = siteConnections;
    const p = await start({
      resolver: createStaticResolver({ "fixture.test": ["127.0.0.1"] }),
      scopeLater: true,
      allowPrivate: [{ host: "127.0.0.1", port: privateService.port }],
    });
    // Waiting for its task: even an address the options name is refused (the scope comes only from scopeTo).
    const plain = await viaProxy(p, `http://fixture.test:${sitePort}/file`);
    assert.equal(plain.status, 403);
    assert.match(plain.body.toString(), /session_not_ready/);
    assert.equal((await tunnel(p, `127.0.0.1:${privateService.port}`)).status, 403);
    assert.equal((await viaProxy(p, `http://127.0.0.1:${privateService.port}/`)).status, 403);
    assert.equal(privateService.connections, 0, "a connection reached the private service before the proxy had a task");
    assert.equal(siteConnections - siteBefore, 0, "a connection reached the site before the proxy had a task");
    assert.deepEqual(p.blocked(), [], "refusals before the task are listed as the task's");

    p.scopeTo({ allowPrivate: [{ host: "fixture.test", port: sitePort }], readOnly: true });
    assert.equal((await viaProxy(p, `http://fixture.test:${sitePort}/file`)).status, 200, "the scope given is served");
    const write = await viaProxy(p, `http://fixture.test:${sitePort}/echo`, { method: "POST", body: Buffer.from("x") });
    assert.equal(write.status, 403, "the scope's read_only rule applies");
    assert.equal((await viaProxy(p, `http://127.0.0.1:${privateService.port}/`)).status, 403, "the start options' allowance was not used");
    assert.equal(privateService.connections, 0);
    assert.equal(p.blocked().length, 2, "the task's own two refusals, and only those, are listed");
    assert.equal(p.blocked()[0]?.code, "method_blocked");
    assert.throws(() => p.scopeTo({ allowPrivate: [{ host: "127.0.0.1", port: privateService.port }] }), /set once/);
    assert.equal((await viaProxy(p, `http://127.0.0.1:${privateService.port}/`)).status, 403, "a second scope widened the first");
    assert.equal(privateService.connections, 0);
  });
});
