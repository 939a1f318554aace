import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createExecutor } from "../../src/executor/createExecutor.js";
import type { NetworkGuard } from "../../src/executor/networkGuard.js";
import { createPolicyNetworkGuard } from "../../src/executor/policyNetworkGuard.js";
import { startSessionProxy } from "../../src/app/buildExecutor.js";
import type { OperatorNetworkPolicy } from "../../src/app/operatorNetworkPolicy.js";
import { parseAllowPrivate } from "../../src/policy/parseAllowPrivate.js";
import { createStaticResolver } from "../../src/policy/staticResolver.js";
import { createLocalProvider } from "../../src/providers/local/localProvider.js";
import { startCountingListener } from "../fixtures/countingListeners.js";
import type { CountingListener } from "../fixtures/countingListeners.js";
import { startRecordingServer } from "../fixtures/fixtureSite.js";
import type { FixtureServer } from "../fixtures/fixtureSite.js";
import { startEgressProxy } from "../../src/providers/local/egressProxy.js";
import { makeContext, makeTask } from "./attemptSupport.js";
import { loopbackGuard } from "./loopbackGuard.js";
import { memoryVault } from "./memoryVault.js";
import { hugeDocument } from "../fixtures/hugeDocument.js";

/**
 * The network boundary from the attacker's side, through the production wiring of the local
 * provider (startSessionProxy: the egress proxy for the task's scope) and the real policy. The site
 * is on 127.0.0.1 under an operator allowance; a counting TCP+UDP listener on 127.0.0.2 stands in
 * for a private service that has an operator allowance of its own, which no task here names.
 */
let site: FixtureServer;
let elsewhere: FixtureServer;
let service: CountingListener;
let policy: OperatorNetworkPolicy;
/** 500 MB of page; counts what actually left the site. */
const huge = hugeDocument(500);
const providers: { shutdown(): Promise<void> }[] = [];

const html = (body: string) => `<!doctype html><html><head><meta charset="utf-8"><title>t</title></head><body>${body}</body></html>`;

function executorWith(guard: NetworkGuard = policy.guard) {
  const provider = createLocalProvider({ env: process.env, proxyForSession: (scope) => startSessionProxy(policy, scope) });
  providers.push(provider);
  return createExecutor({ provider, guard, secrets: memoryVault(), defaultTaskTimeoutMs: 20_000, defaultStepTimeoutMs: 5_000 });
}

/** Layer 2 switched off: only the egress proxy (which knows the task) stands in the way. */
const proxyOnly: NetworkGuard = {
  forTask: () => proxyOnly,
  checkRequest: () => ({ allowed: true, code: "ok", reason: "test: layer 2 off" }),
  checkAllowedHosts: () => ({ allowed: true, code: "ok", reason: "test: layer 2 off" }),
  preflight: (url) =>
    Promise.resolve({
      url,
      href: new URL(url).href,
      host: new URL(url).hostname,
      verdict: "allow",
      code: "ok",
      reason: "test",
      resolver: "none",
      addresses: [],
    }),
};

const serviceUrl = () => `http://127.0.0.2:${service.port}`;

before(async () => {
  service = await startCountingListener("127.0.0.2");
  const p = () => service.port;
  elsewhere = await startRecordingServer("127.0.0.3", {}, (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(html("elsewhere")));
  site = await startRecordingServer("127.0.0.1", {
    "/popups": (_req, res) =>
      res.writeHead(200, { "content-type": "text/html" }).end(
        html(`<button id="open" onclick="window.open('${elsewhere.origin}/window-open')">open</button>
<a id="link" target="_blank" href="${elsewhere.origin}/blank-link">link</a>
<form id="f" target="_blank" action="${elsewhere.origin}/blank-form"><input name="q" value="1"><button id="submit">go</button></form>
<button id="noopener" onclick="window.open('${elsewhere.origin}/noopener', '_blank', 'noopener')">noopener</button><p id="p">popups</p>`),
      ),
    "/plain": (_req, res) =>
      res
        .writeHead(200, { "content-type": "text/html" })
        .end(html(`<form><input name="email" autocomplete="email"><input name="password" type="password"></form><p id="p">plain page</p>`)),
    "/webrtc": (_req, res) =>
      res.writeHead(200, { "content-type": "text/html" }).end(
        html(`<p id="p">start</p><script>
const host = "127.0.0.2", port = ${p()};
const say = (t) => { document.getElementById("p").textContent += " " + t; };
(async () => {
  try {
    const pc = new RTCPeerConnection({ iceServers: [
      { urls: "stun:" + host + ":" + port },
      { urls: "turn:" + host + ":" + port + "?transport=udp", username: "u", credential: "p" },
      { urls: "turn:" + host + ":" + port + "?transport=tcp", username: "u", credential: "p" },
      { urls: "stun:169.254.169.254:" + port } ] });
    pc.createDataChannel("x");
    const offer = await pc.createOffer();
    await pc.setLocalDescription(offer);
    const peer = new RTCPeerConnection();
    await peer.setRemoteDescription(offer);
    await pc.setRemoteDescription(await peer.createAnswer());
    for (const c of ["candidate:1 1 udp 2122260223 " + host + " " + port + " typ host",
                     "candidate:2 1 tcp 1518280447 " + host + " " + port + " typ host tcptype passive",
                     "candidate:3 1 udp 2122260223 169.254.169.254 " + port + " typ host",
                     "candidate:4 1 udp 1686052607 " + host + " " + port + " typ srflx raddr 0.0.0.0 rport 0"]) {
      await pc.addIceCandidate({ candidate: c, sdpMid: "0", sdpMLineIndex: 0 }).catch((e) => say("add:" + e.name));
    }
    say("attacking");
  } catch (e) { say("error:" + e.name); }
  setTimeout(() => say("webrtc-finished"), 4000);
})();
</script>`),
      ),
    "/reach": (_req, res) =>
      res.writeHead(200, { "content-type": "text/html" }).end(
        html(`<img src="${serviceUrl()}/img"><img src="http://intranet.test:${p()}/named-img"><iframe src="${serviceUrl()}/frame"></iframe><iframe src="http://intranet.test:${p()}/named-frame"></iframe>
<script>fetch("${serviceUrl()}/fetch").catch(()=>{});fetch("http://intranet.test:${p()}/named-fetch",{mode:"no-cors"}).catch(()=>{});navigator.sendBeacon("${serviceUrl()}/beacon","x");
const l=document.createElement("link");l.rel="preconnect";l.href="${serviceUrl()}";document.head.append(l);</script><p id="p">reach page</p>`),
      ),
    "/reach-fetch": (_req, res) =>
      res
        .writeHead(200, { "content-type": "text/html" })
        .end(html(`<script>fetch("${serviceUrl()}/fetch",{mode:"no-cors"}).catch(()=>{})</script><p id="p">reach page</p>`)),
    "/unload": (_req, res) =>
      res.writeHead(200, { "content-type": "text/html" }).end(
        html(`<p id="p">unload page</p><script>
const send = (why) => { navigator.sendBeacon("/sink?" + why + "-beacon", "x"); fetch("/sink?" + why + "-keepalive", { method: "POST", body: "x", keepalive: true }).catch(() => {}); };
addEventListener("pagehide", () => send("pagehide"));
addEventListener("unload", () => send("unload"));
addEventListener("beforeunload", () => send("beforeunload"));
try { const w = new SharedWorker(URL.createObjectURL(new Blob(['fetch("' + location.origin + '/sink?shared", { method: "POST", body: "x" })'], { type: "text/javascript" }))); } catch (e) { document.getElementById("p").textContent += " no-shared-worker"; }
const d = new Worker(URL.createObjectURL(new Blob(['fetch("' + location.origin + '/sink?dedicated", { method: "POST", body: "x" }).catch(() => {})'], { type: "text/javascript" })));
navigator.serviceWorker?.register("/sw.js").catch(() => {});
</script>`),
      ),
    "/next": (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(html(`<p id="p">next page</p>`)),
    "/sw.js": (_req, res) =>
      res
        .writeHead(200, { "content-type": "text/javascript" })
        .end(`self.addEventListener("install", () => fetch("/sink?sw", { method: "POST", body: "x" }));`),
    "/sink": (_req, res) => res.writeHead(204).end(),
    "/huge": huge.route,
  });
  const allowances = parseAllowPrivate([site.origin.slice("http://".length), `127.0.0.2:${service.port}`]);
  assert.ok(allowances.ok);
  const resolver = createStaticResolver({ "intranet.test": ["127.0.0.2"] });
  policy = { resolver, allowPrivate: allowances.value, guard: createPolicyNetworkGuard({ resolver, allowPrivate: allowances.value }) };
});

after(async () => {
  for (const provider of providers) await provider.shutdown();
  await site.close();
  await elsewhere.close();
  await service.close();
});

const task = makeTask;
const context = makeContext;

describe("network boundary: WebRTC, task-scoped allowances, writes on unload, background traffic", () => {
  test("WebRTC with STUN/TURN servers and forged candidates sends no UDP datagram and no TCP connection", async () => {
    const execute = executorWith();
    const { receipt } = await execute(
      task({ target: { url: `${site.origin}/webrtc` }, steps: [{ action: "expect_text", text: "webrtc-finished", selector: "#p", timeoutMs: 15_000 }] }),
      context(),
    );
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
    assert.equal(service.udpDatagrams(), 0, "a WebRTC datagram reached the private listener");
    assert.equal(service.tcpConnections(), 0, "a WebRTC connection reached the private listener");
    // WebRTC's TCP attempts go to the proxy, which refuses them and says so in the receipt.
    assert.ok(receipt.network.egressBlocked >= 1, JSON.stringify(receipt.network));
  });

  test("an allowance for a private host:port is unreachable from a task that does not name it: direct, by a name resolving to it, by img/fetch/iframe/beacon/preconnect", async () => {
    for (const guard of [policy.guard, proxyOnly]) {
      const execute = executorWith(guard);
      const { receipt } = await execute(
        task({
          target: { url: `${site.origin}/reach` },
          steps: [
            { action: "expect_text", text: "reach page" },
            { action: "wait_for", selector: "#never", timeoutMs: 1_500 },
          ],
        }),
        context(),
      );
      assert.equal(receipt.status, "FAIL");
      const stopped = receipt.network.blockedRequests + receipt.network.egressBlocked;
      assert.ok(stopped >= 3, `only ${stopped} refusals recorded: ${JSON.stringify(receipt.network)}`);
    }
    // Even a task that names the allowed IP may not reach it through a name that resolves to it.
    const named = await executorWith()(
      task({ target: { url: `http://intranet.test:${service.port}/` }, allowedHosts: ["127.0.0.2"], steps: [{ action: "expect_text", text: "x" }] }),
      context(),
    );
    assert.equal(named.receipt.status, "BLOCKED");
    assert.equal(named.receipt.error?.code, "dns_private_answer");
    assert.equal(service.tcpConnections(), 0, "the private service received a connection");
    assert.equal(service.udpDatagrams(), 0);
  });

  test("a task that names the allowance's IP in allowedHosts may reach it, and only then", async () => {
    const before = service.tcpConnections();
    const { receipt } = await executorWith()(
      task({
        target: { url: `${site.origin}/reach-fetch` },
        allowedHosts: ["127.0.0.2"],
        steps: [
          { action: "expect_text", text: "reach page" },
          { action: "wait_for", selector: "#never", timeoutMs: 1_500 },
        ],
      }),
      context(),
    );
    assert.equal(receipt.error?.code, "timeout");
    assert.ok(service.tcpConnections() > before, "the named allowance was usable");
    const unnamed = await executorWith()(
      task({ target: { url: `${site.origin}/plain` }, allowedHosts: ["10.9.9.9"], steps: [{ action: "expect_text", text: "plain" }] }),
      context(),
    );
    assert.equal(unnamed.receipt.status, "BLOCKED");
    assert.equal(unnamed.receipt.error?.code, "invalid_allowed_host");
  });

  test("read_only: pagehide/unload beacons, keepalive fetches, shared/dedicated/service workers send zero writes, also when errand closes the page", async () => {
    const writesBefore = site.hits.filter((h) => h.method !== "GET" && h.method !== "HEAD").length;
    const execute = executorWith();
    const stay = await execute(
      task({
        target: { url: `${site.origin}/unload` },
        steps: [
          { action: "expect_text", text: "unload page" },
          { action: "wait_for", selector: "#never", timeoutMs: 1_000 },
        ],
      }),
      context(),
    );
    const leave = await execute(
      task({
        target: { url: `${site.origin}/unload` },
        steps: [
          { action: "expect_text", text: "unload page" },
          { action: "goto", url: `${site.origin}/next` },
          { action: "expect_text", text: "next page" },
        ],
      }),
      context(),
    );
    assert.equal(leave.receipt.status, "PASS", JSON.stringify(leave.receipt.error));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const writes = site.hits.filter((h) => h.method !== "GET" && h.method !== "HEAD").slice(writesBefore);
    assert.deepEqual(
      writes.map((h) => `${h.method} ${h.path}`),
      [],
      "a write reached the site",
    );
    for (const receipt of [stay.receipt, leave.receipt]) {
      assert.ok(receipt.network.nonGetAborted + receipt.network.egressBlocked >= 1, JSON.stringify(receipt.network));
    }
  });

  test("popups, window.open and target=_blank links and forms to a host outside the task's hosts are stopped before their first request", async () => {
    // 127.0.0.3 plays a public host here: layer 2 and the proxy both admit it, so only the rule that
    // top-level navigations stay on the task's hosts stands between the page and it.
    const all = [...policy.allowPrivate, { host: "127.0.0.3", port: elsewhere.port }];
    const provider = createLocalProvider({
      env: process.env,
      proxyForSession: async () => {
        const proxy = await startEgressProxy({ resolver: policy.resolver, allowPrivate: all });
        return { server: proxy.url, blocked: () => proxy.blocked(), seal: () => proxy.seal(), close: () => proxy.close() };
      },
    });
    providers.push(provider);
    const execute = createExecutor({
      provider,
      guard: loopbackGuard([site.origin, elsewhere.origin]),
      secrets: memoryVault(),
      defaultTaskTimeoutMs: 20_000,
      defaultStepTimeoutMs: 3_000,
    });
    for (const selector of ["#open", "#link", "#submit", "#noopener"]) {
      const { receipt } = await execute(
        task({
          target: { url: `${site.origin}/popups` },
          steps: [
            { action: "click", selector },
            { action: "wait_for", selector: "#never", timeoutMs: 1_000 },
          ],
        }),
        context(),
      );
      assert.notEqual(receipt.status, "PASS", selector);
      assert.ok(receipt.network.navigationsBlocked >= 1, `${selector}: ${JSON.stringify(receipt.network)}`);
    }
    assert.deepEqual(
      elsewhere.hits.map((h) => h.path),
      [],
      "a popup's request reached the other host",
    );
    assert.equal(elsewhere.connections(), 0);
  });

  test("a 500 MB document fails the step with document_too_large while errand's memory stays bounded", async () => {
    const execute = executorWith();
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    try {
      const { receipt } = await execute(task({ target: { url: `${site.origin}/huge` }, steps: [{ action: "expect_text", text: "a" }] }), context());
      assert.equal(receipt.status, "FAIL");
      assert.equal(receipt.error?.code, "document_too_large", JSON.stringify(receipt.error));
    } finally {
      clearInterval(sampler);
    }
    const grew = (peak - baseline) / (1024 * 1024);
    // The cap is 10 MiB; the decoded chunks, their copy for the browser and the runtime's own churn
    // stay far below what a buffered 500 MB page would need.
    assert.ok(grew < 120, `errand's RSS grew by ${grew.toFixed(0)} MB`);
    assert.ok(huge.bytesSent() < 200 * 1024 * 1024, `the site got to send ${(huge.bytesSent() / 1048576).toFixed(0)} MB before errand stopped reading`);
    console.log(
      `# 500 MB document: errand RSS grew ${grew.toFixed(1)} MB (peak ${(peak / 1048576).toFixed(0)} MB), site sent ${(huge.bytesSent() / 1048576).toFixed(0)} MB before the connection was cut`,
    );
  });

  test("a plain task's receipt lists no request the task never made (no autofill, updates or other background traffic)", async () => {
    const execute = executorWith();
    const { receipt } = await execute(
      task({
        target: { url: `${site.origin}/plain` },
        steps: [
          { action: "fill", selector: "input[name=email]", value: "a@example.com" },
          { action: "expect_text", text: "plain page" },
          { action: "wait_for", selector: "#never", timeoutMs: 3_000 },
        ],
      }),
      context(),
    );
    assert.equal(receipt.error?.code, "timeout");
    const foreign = receipt.network.blocked.filter((b) => !b.url.text.includes("127.0.0.1"));
    assert.deepEqual(foreign, [], "the receipt lists requests the task never made");
    assert.equal(receipt.network.egressBlocked, 0, JSON.stringify(receipt.network.blocked));
  });
});
