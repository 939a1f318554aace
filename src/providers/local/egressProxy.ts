import { Agent, createServer, request as httpRequest } from "node:http";
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, RequestOptions, ServerResponse } from "node:http";
import { timingSafeEqual } from "node:crypto";
import { connect } from "node:net";
import { networkInterfaces } from "node:os";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { AddressEvidence } from "../../policy/checkAddress.js";
import { checkDestination } from "../../policy/checkDestination.js";
import { canonicalIp } from "../../policy/classifyIp.js";
import { normalizeHost } from "../../policy/classifyHostName.js";
import type { DestinationVerdict } from "../../policy/networkVerdict.js";
import type { PrivateAllowance } from "../../policy/parseAllowPrivate.js";
import { isReadOnlyMethod } from "../../policy/readOnlyMethods.js";
import type { Resolver } from "../../policy/resolver.js";
import { listenOnLoopback, plainReply, rawReply } from "./proxyReplies.js";
import { TunnelGate } from "./tunnelGate.js";

/**
 * What one task may do through its proxy. Given at start, or, for a proxy started before its task
 * is known (a spare browser context kept ready), once through `scopeTo`; until then it refuses
 * everything.
 */
export interface EgressScope {
  /**
   * Operator allowances (exact private host:port), already narrowed to the ones the task names
   * (scopeAllowances): the proxy serves one task, and another task's allowance must not apply here.
   */
  allowPrivate?: readonly PrivateAllowance[];
  /**
   * A read_only task: plain http requests other than GET, HEAD and OPTIONS are refused (code
   * method_blocked). Inside https tunnels the proxy cannot see methods; the browser guards do that.
   */
  readOnly?: boolean;
  /**
   * Who may use the proxy. When set, a request or tunnel is admitted only when it carries a
   * User-Agent (Chromium's network stack sending for a page or worker) or `Proxy-Authorization:
   * Basic` with exactly this user and password (errand's own request clients: Playwright's
   * route.fetch with the context's proxy credentials). WebRTC's relay and ICE-TCP tunnels carry
   * neither and are refused (code webrtc_blocked). The proxy never answers 407, so Chromium never
   * learns the credential and cannot lend it to WebRTC from its proxy-auth cache. Absent: anyone.
   */
  callers?: { username: string; password: string };
  /**
   * Hold the browser's tunnels to hosts the task does not name until errand's in-browser guard has
   * let a request to that host:port through (TunnelGate; the guard calls `admit` and `dismiss`), so
   * the connection Chromium opens on its own for a navigation the guard stops never reaches the
   * host. `preadmitted`: the task's own hosts, never held. `holdMs` (default 10 s): then refused
   * (code preconnect_blocked). Tunnels carrying the proxy credential (errand's own) are never held.
   */
  holdTunnels?: { preadmitted: (host: string) => boolean; holdMs?: number };
}

export interface EgressProxyOptions extends EgressScope {
  /** Resolves every destination name; the proxy dials only addresses this lookup returned and the policy passed. */
  resolver: Resolver;
  /**
   * Start with no task: every request and tunnel is refused (code session_not_ready, not logged:
   * it is nobody's task evidence) until `scopeTo` gives the task's scope. The scope fields above are
   * then ignored. For a context opened ahead of its task, so nothing it sends before then leaves.
   */
  scopeLater?: boolean;
  /** Milliseconds for resolving, checking and opening the upstream connection. Default 10 s. */
  connectTimeoutMs?: number;
  /** How many blocked connections the log keeps (the count goes on). Default 1000. */
  maxRecords?: number;
  /** Called once for every blocked connection, as it happens. */
  onBlocked?: (record: BlockedConnection) => void;
  /**
   * This machine's own addresses, refused even when public (a public address on a local interface
   * reaches services bound to 0.0.0.0). Read per request when given; default: every interface's
   * addresses, read at most once every OWN_ADDRESSES_TTL_MS (2 s) and shared by all proxies.
   */
  localAddresses?: () => readonly string[];
}

/** One connection the proxy refused, for the receipt. */
export interface BlockedConnection {
  at: string;
  /** "CONNECT" for tunnels (https, wss, ws), otherwise the HTTP method of a plain forward request. */
  method: string;
  host: string;
  port: number;
  code: string;
  reason: string;
  addresses: AddressEvidence[];
}

export interface EgressProxy {
  /** `http://127.0.0.1:PORT`, for Playwright's `proxy.server`. */
  readonly url: string;
  readonly port: number;
  /** The blocked connections so far (a copy), oldest first. */
  blocked(): BlockedConnection[];
  /** Gives a proxy started with `scopeLater` its task's scope; once only (a second call throws). */
  scopeTo(scope: EgressScope): void;
  /** The in-browser guard let a request to host:port through: tunnels held for it (now or later) may go (holdTunnels). */
  admit(host: string, port: number): void;
  /** The in-browser guard stopped a navigation to host:port: the tunnels held for it now are refused with this code. */
  dismiss(host: string, port: number, code: string, reason: string): void;
  /** Decisions so far: `allowed` counts requests and tunnels let through (several may share one upstream connection). */
  stats(): { allowed: number; blocked: number };
  /**
   * The session is ending: from now on every request and tunnel is refused (code session_closed) and
   * every open connection is cut at once, so what a page sends while it unloads never leaves.
   */
  seal(): void;
  /** Stops listening and destroys every client and upstream socket, idle pooled ones included. */
  close(): Promise<void>;
}

/** Headers that describe one hop, not the message; never forwarded in either direction. */
const HOP_BY_HOP = new Set([
  "connection",
  "proxy-connection",
  "keep-alive",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/** Idle keep-alive upstream connections kept per checked address:port, and how long each may idle. */
const MAX_IDLE_PER_ADDRESS = 8;
const IDLE_MS = 4_000;
/** How long the machine's own interface addresses are reused before they are read again. */
const OWN_ADDRESSES_TTL_MS = 2_000;

type Target = { host: string; port: number; path: string; authority: string } | { error: string };

/**
 * Layer 3 of network safety: an HTTP proxy on 127.0.0.1 that the local Chromium sends all traffic
 * through (plain http forwarding, and CONNECT tunnels, which carry https, ws and wss). For each
 * destination it resolves the name once, applies the network policy to every answer, and dials one
 * of exactly the addresses it checked, so neither a redirect nor a DNS answer that changes after the
 * preflight (rebinding) can reach a private address. Refusals answer 403 and are logged.
 *
 * One proxy per browser context gives each context its own log; a proxy costs one listening socket.
 */
export async function startEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const maxRecords = options.maxRecords ?? 1_000;
  const sockets = new Set<Duplex>();
  const log: BlockedConnection[] = [];
  const counts = { allowed: 0, blocked: 0 };
  let closing = false;
  let sealed = false;
  const gateFor = (scope: EgressScope) =>
    scope.holdTunnels === undefined
      ? null
      : new TunnelGate({ preadmitted: scope.holdTunnels.preadmitted, holdMs: scope.holdTunnels.holdMs ?? connectTimeoutMs });
  /** The task's scope; null while a proxy started with scopeLater waits for its task. */
  let scope: EgressScope | null = options.scopeLater === true ? null : options;
  let gate = scope === null ? null : gateFor(scope);

  function track(socket: Duplex): void {
    if (closing) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  }

  function refuse(method: string, verdict: Pick<DestinationVerdict, "host" | "port" | "reason" | "addresses"> & { code: string }): string {
    counts.blocked++;
    const record: BlockedConnection = {
      at: new Date().toISOString(),
      method,
      host: verdict.host,
      port: verdict.port,
      code: verdict.code,
      reason: verdict.reason,
      addresses: verdict.addresses,
    };
    if (log.length < maxRecords) log.push(record);
    options.onBlocked?.(record);
    return `errand egress proxy refused ${verdict.host}:${verdict.port}: ${verdict.reason} [${verdict.code}]\n`;
  }

  /** Resolves and checks once: the addresses this destination may be reached at now, or why not. */
  async function check(
    method: string,
    host: string,
    port: number,
    headers: IncomingHttpHeaders,
    deadline: AbortSignal,
  ): Promise<{ addresses: AddressEvidence[]; host: string } | { status: number; body: string }> {
    if (sealed)
      return {
        status: 403,
        body: refuse(method, {
          host: normalizeHost(host),
          port,
          code: "session_closed",
          reason: "the task's session has ended; nothing more is sent",
          addresses: [],
        }),
      };
    // Not logged: a context waiting for its task has no receipt to put it in.
    if (scope === null)
      return { status: 403, body: `errand egress proxy refused ${normalizeHost(host)}:${port}: no task has this session yet [session_not_ready]\n` };
    if (options.callers !== undefined && !identifiedCaller(headers, options.callers)) {
      const reason =
        "neither a page's request (it carries a User-Agent) nor errand's own: WebRTC relay and ICE-TCP connections look like this, and a task never needs them";
      return { status: 403, body: refuse(method, { host: normalizeHost(host), port, code: "webrtc_blocked", reason, addresses: [] }) };
    }
    if (scope.readOnly === true && method !== "CONNECT" && !isReadOnlyMethod(method)) {
      return {
        status: 403,
        body: refuse(method, {
          host: normalizeHost(host),
          port,
          code: "method_blocked",
          reason: `${method} is not allowed in a read_only task`,
          addresses: [],
        }),
      };
    }
    const verdict = await checkDestination(host, port, {
      resolver: options.resolver,
      allowPrivate: scope.allowPrivate ?? [],
      signal: deadline,
      timeoutMs: connectTimeoutMs,
    });
    if (verdict.verdict === "block") return { status: 403, body: refuse(method, verdict) };
    const own = ownAddress(verdict.addresses);
    if (own !== undefined) {
      const reason = `${own.ip} is an address of this machine`;
      return { status: 403, body: refuse(method, { ...verdict, code: "ip_blocked", reason }) };
    }
    counts.allowed++;
    return { addresses: verdict.addresses, host: verdict.host };
  }

  /** Dials the checked addresses in order; the first that answers wins. */
  async function dialChecked(addresses: readonly AddressEvidence[], port: number, deadline: AbortSignal): Promise<{ socket: Socket; ip: string } | null> {
    for (const address of addresses) {
      const socket = await dial(address.ip, port, deadline);
      if (socket !== null) {
        track(socket);
        return { socket, ip: address.ip };
      }
    }
    return null;
  }

  /**
   * Holds a browser's tunnel to a host no request was let through to yet (TunnelGate), or null when
   * it may go on to the checks. Sealed sessions and callers that are neither a page nor errand are
   * not held: check() refuses them at once.
   */
  async function hold(host: string, port: number, headers: IncomingHttpHeaders): Promise<{ status: number; body: string } | null> {
    if (gate === null || sealed || options.callers === undefined) return null;
    if (carriesCredential(headers, options.callers) || !identifiedCaller(headers, options.callers)) return null;
    const judgement = await gate.wait(host, port);
    if (judgement.admitted) return null;
    return { status: 403, body: refuse("CONNECT", { host: normalizeHost(host), port, code: judgement.code, reason: judgement.reason, addresses: [] }) };
  }

  /** Checks, then opens a new connection to a checked address (tunnels and upgrades: never pooled). */
  async function open(
    method: string,
    host: string,
    port: number,
    headers: IncomingHttpHeaders,
  ): Promise<{ socket: Socket; ip: string } | { status: number; body: string }> {
    const deadline = AbortSignal.timeout(connectTimeoutMs);
    const checked = await check(method, host, port, headers, deadline);
    if (!("addresses" in checked)) return checked;
    return (
      (await dialChecked(checked.addresses, port, deadline)) ?? { status: 502, body: `errand egress proxy could not connect to ${checked.host}:${port}\n` }
    );
  }

  /** A public address that belongs to this machine, unless an operator allowance admitted it. */
  function ownAddress(addresses: readonly AddressEvidence[]): AddressEvidence | undefined {
    const local = options.localAddresses === undefined ? machineAddresses() : canonicalSet(options.localAddresses());
    return addresses.find((a) => a.verdict === "public" && local.has(a.ip));
  }

  // Keep-alive pool for plain http:// forwarding. The agent files each socket under the exact
  // address:port it was dialed to (`host` is always an IP here, so the agent never resolves). Safety:
  // the pool is consulted only after this request's own destination was resolved and checked again,
  // and only under the addresses that check just allowed. A pooled socket therefore carries a request
  // only to an address the policy admits for that request at that moment, which is exactly where a
  // fresh dial would go: a destination that has become refused (new DNS answer, own address) is refused
  // before the pool is looked at, and a socket to its old address is only ever handed to a later
  // request whose own check allows that very address. Tunnels and upgrades are never pooled.
  const pool = new Agent({ keepAlive: true, maxFreeSockets: MAX_IDLE_PER_ADDRESS, timeout: IDLE_MS, scheduling: "lifo" });
  // The agent never dials: it gets the socket forward() dialed to a checked address, or none at all.
  pool.createConnection = (opts) => {
    const dialed = (opts as Forward).dialed;
    if (dialed === undefined) throw new Error("errand egress proxy: no checked connection for this request");
    return dialed;
  };
  const hasIdle = (ip: string, port: number): boolean => (pool.freeSockets[pool.getName({ host: ip, port })]?.length ?? 0) > 0;

  async function forward(req: IncomingMessage, res: ServerResponse, target: Exclude<Target, { error: string }>, retry: boolean): Promise<void> {
    const deadline = AbortSignal.timeout(connectTimeoutMs);
    const checked = await check(req.method ?? "GET", target.host, target.port, req.headers, deadline);
    if (!("addresses" in checked)) return plainReply(res, checked.status, checked.body);
    let ip = checked.addresses.find((a) => hasIdle(a.ip, target.port))?.ip;
    let dialed: Socket | undefined;
    if (ip === undefined) {
      const opened = await dialChecked(checked.addresses, target.port, deadline);
      if (opened === null) return plainReply(res, 502, `errand egress proxy could not connect to ${checked.host}:${target.port}\n`);
      ({ socket: dialed, ip } = opened);
    }
    if (res.destroyed) return void dialed?.destroy();
    const forwardOptions: Forward = {
      agent: pool,
      host: ip,
      port: target.port,
      method: req.method,
      path: target.path,
      // RFC 9112 3.2.2: the absolute-form target, not the received Host header, names the host.
      headers: { ...endToEnd(req.headers), host: target.authority },
      dialed,
    };
    const upstream = httpRequest(forwardOptions);
    // A socket freed while we dialed may have been reused instead (same checked address): drop ours.
    upstream.once("socket", (socket) => socket !== dialed && dialed?.destroy());
    res.once("close", () => res.writableFinished || upstream.destroy());
    upstream.on("response", (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.headers));
      answer.pipe(res);
    });
    const bodyless = req.headers["content-length"] === undefined && req.headers["transfer-encoding"] === undefined;
    upstream.on("error", () => {
      // A pooled socket the server closed while idle: retry a bodyless GET/HEAD once, checked afresh.
      if (retry && upstream.reusedSocket && bodyless && !res.headersSent && (req.method === "GET" || req.method === "HEAD"))
        return guarded(res, () => forward(req, res, target, false));
      if (res.headersSent) res.destroy();
      else plainReply(res, 502, "errand egress proxy: upstream failed\n");
    });
    if (bodyless) upstream.end();
    else req.pipe(upstream);
  }

  const server = createServer();
  server.on("connection", track);

  // Plain http:// forwarding: the request line carries an absolute URL.
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    guarded(res, async () => {
      const target = forwardTarget(req.url ?? "");
      if ("error" in target) return plainReply(res, 400, refuse(req.method ?? "GET", invalid(req.url ?? "", target.error)));
      await forward(req, res, target, true);
    });
  });

  // CONNECT host:port tunnels: https, wss, and ws.
  server.on("connect", (req: IncomingMessage, client: Duplex, head: Buffer) => {
    guarded(client, async () => {
      const target = authorityTarget(req.url ?? "");
      if ("error" in target) return rawReply(client, 400, refuse("CONNECT", invalid(req.url ?? "", target.error)));
      const held = await hold(target.host, target.port, req.headers);
      if (held !== null) return rawReply(client, held.status, held.body);
      // Chromium gave up on a tunnel while it was held (a cancelled speculative connection): dial nothing.
      if (client.destroyed) return;
      const opened = await open("CONNECT", target.host, target.port, req.headers);
      if (!("socket" in opened)) return rawReply(client, opened.status, opened.body);
      if (client.destroyed) return void opened.socket.destroy();
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      splice(client, opened.socket, head);
    });
  });

  // A plain-forward request asking for a protocol upgrade (ws:// without CONNECT).
  server.on("upgrade", (req: IncomingMessage, client: Duplex, head: Buffer) => {
    guarded(client, async () => {
      const target = forwardTarget(req.url ?? "");
      if ("error" in target) return rawReply(client, 400, refuse(req.method ?? "GET", invalid(req.url ?? "", target.error)));
      const opened = await open(req.method ?? "GET", target.host, target.port, req.headers);
      if (!("socket" in opened)) return rawReply(client, opened.status, opened.body);
      if (client.destroyed) return void opened.socket.destroy();
      const lines = [`${req.method ?? "GET"} ${target.path} HTTP/1.1`, `Host: ${target.authority}`];
      for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
        const name = (req.rawHeaders[i] ?? "").toLowerCase();
        if (!name.startsWith("proxy-") && name !== "host") lines.push(`${req.rawHeaders[i] ?? ""}: ${req.rawHeaders[i + 1] ?? ""}`);
      }
      opened.socket.write(`${lines.join("\r\n")}\r\n\r\n`);
      splice(client, opened.socket, head);
    });
  });

  const port = await listenOnLoopback(server);

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    blocked: () => log.map((r) => ({ ...r, addresses: [...r.addresses] })),
    scopeTo(next: EgressScope): void {
      if (scope !== null) throw new Error("this egress proxy already serves a task; its scope is set once");
      if (sealed || closing) return;
      scope = next;
      gate = gateFor(next);
    },
    stats: () => ({ ...counts }),
    admit: (host, port) => gate?.admit(host, port),
    dismiss: (host, port, code, reason) => gate?.dismiss(host, port, code, reason),
    seal(): void {
      sealed = true;
      gate?.refuseAll("session_closed", "the task's session has ended; nothing more is sent");
      pool.destroy();
      for (const socket of sockets) socket.destroy();
    },
    async close(): Promise<void> {
      closing = true;
      gate?.refuseAll("session_closed", "the task's session has ended; nothing more is sent");
      pool.destroy();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

/**
 * A request from Chromium's network stack on behalf of a page (it always carries a User-Agent, in
 * CONNECT too) or from errand's own client (the session's proxy credential, sent up front). Chromium
 * 156's WebRTC tunnels (TURN over TCP/TLS, ICE-TCP candidates) carry neither, and a page cannot add
 * headers to them.
 */
function identifiedCaller(headers: IncomingHttpHeaders, callers: { username: string; password: string }): boolean {
  const agent = headers["user-agent"];
  if (typeof agent === "string" && agent.trim() !== "") return true;
  return carriesCredential(headers, callers);
}

/** errand's own request clients (document fetches, route.fetch) send the session's proxy credential up front; Chromium never learns it. */
function carriesCredential(headers: IncomingHttpHeaders, callers: { username: string; password: string }): boolean {
  const given = headers["proxy-authorization"];
  if (typeof given !== "string") return false;
  const expected = Buffer.from(`Basic ${Buffer.from(`${callers.username}:${callers.password}`).toString("base64")}`);
  const actual = Buffer.from(given.trim());
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A plain forward request, with the connection to a checked address that the agent is to use. */
type Forward = RequestOptions & { dialed?: Socket | undefined };

function canonicalSet(ips: readonly string[]): ReadonlySet<string> {
  return new Set(ips.map((ip) => canonicalIp(ip) ?? ip));
}

let machineCache: { at: number; ips: ReadonlySet<string> } | undefined;

/**
 * Every interface's addresses, read again once they are OWN_ADDRESSES_TTL_MS old (reading them costs
 * tens of microseconds, too much per request). An address added to an interface is refused at most
 * that long after it appears.
 */
function machineAddresses(): ReadonlySet<string> {
  const now = Date.now();
  if (machineCache === undefined || now - machineCache.at >= OWN_ADDRESSES_TTL_MS || now < machineCache.at) {
    const ips = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((entry) => entry.address.split("%")[0] ?? ""));
    machineCache = { at: now, ips: canonicalSet(ips) };
  }
  return machineCache.ips;
}

/** Runs a connection handler; an unexpected failure closes that one connection, never the proxy. */
function guarded(connection: { destroy(): void }, handler: () => Promise<void>): void {
  handler().catch(() => connection.destroy());
}

/** Opens a TCP connection to exactly this address (an IP, so no lookup happens), or null. */
function dial(ip: string, port: number, deadline: AbortSignal): Promise<Socket | null> {
  return new Promise((resolve) => {
    if (deadline.aborted) return resolve(null);
    const socket = connect({ host: ip, port });
    const giveUp = (): void => {
      socket.destroy();
      resolve(null);
    };
    deadline.addEventListener("abort", giveUp, { once: true });
    socket.once("connect", () => {
      deadline.removeEventListener("abort", giveUp);
      resolve(socket);
    });
    socket.once("error", giveUp);
  });
}

/** Joins two sockets, after writing bytes the client already sent. Either side ending ends both. */
function splice(client: Duplex, upstream: Socket, head: Buffer): void {
  if (head.length > 0) upstream.write(head);
  upstream.pipe(client);
  client.pipe(upstream);
  upstream.on("error", () => client.destroy());
  client.on("error", () => upstream.destroy());
  upstream.on("close", () => client.destroy());
  client.on("close", () => upstream.destroy());
}

/** Reads the absolute-form target of a forward request; only http: is forwarded in the clear. */
function forwardTarget(raw: string): Target {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { error: "not an absolute URL (this is a proxy)" };
  }
  if (url.protocol !== "http:" && url.protocol !== "ws:") return { error: `scheme ${url.protocol} is not forwarded in the clear` };
  if (url.username !== "" || url.password !== "") return { error: "userinfo in a proxied URL" };
  return { host: url.hostname, port: url.port === "" ? 80 : Number(url.port), path: `${url.pathname}${url.search}`, authority: url.host };
}

/** Reads CONNECT's authority-form target: host:port, IPv6 in brackets, the port always explicit. */
function authorityTarget(raw: string): Target {
  const colon = raw.lastIndexOf(":");
  const hostText = colon < 0 ? "" : raw.slice(0, colon);
  const portText = colon < 0 ? "" : raw.slice(colon + 1);
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535 || hostText === "") return { error: "CONNECT needs host:port" };
  if (hostText.includes(":") && !hostText.startsWith("[")) return { error: "IPv6 CONNECT targets need brackets" };
  let host: string;
  try {
    const url = new URL(`http://${hostText}/`);
    if (url.username !== "" || url.password !== "" || url.pathname !== "/" || url.search !== "" || url.hash !== "") return { error: "not a plain host" };
    host = url.hostname;
  } catch {
    return { error: "not a valid host" };
  }
  return { host, port: Number(portText), path: "", authority: `${host}:${portText}` };
}

function invalid(raw: string, error: string): Pick<DestinationVerdict, "host" | "port" | "code" | "reason" | "addresses"> {
  const shown = raw.length > 200 ? `${raw.slice(0, 197)}...` : raw;
  return { host: normalizeHost(shown), port: 0, code: "invalid_url", reason: `proxy target "${shown}": ${error}`, addresses: [] };
}

/** Copies end-to-end headers, dropping hop-by-hop ones (and any the Connection header names). */
function endToEnd(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const named = new Set(
    String(headers["connection"] ?? "")
      .toLowerCase()
      .split(",")
      .map((s) => s.trim()),
  );
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name) && !named.has(name)) out[name] = value;
  }
  return out;
}
