import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:https";
import type { Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createExecutor } from "../../src/executor/createExecutor.js";
import { createPolicyNetworkGuard } from "../../src/executor/policyNetworkGuard.js";
import { startSessionProxy } from "../../src/app/buildExecutor.js";
import type { OperatorNetworkPolicy } from "../../src/app/operatorNetworkPolicy.js";
import { parseAllowPrivate } from "../../src/policy/parseAllowPrivate.js";
import { createStaticResolver } from "../../src/policy/staticResolver.js";
import { createLocalProvider } from "../../src/providers/local/localProvider.js";
import { makeContext, makeTask } from "./attemptSupport.js";
import { memoryVault } from "./memoryVault.js";

/**
 * read_only over https, from the attacker's side. Inside a CONNECT tunnel the egress proxy cannot
 * see methods, so only the in-browser layer (the method rule, SharedWorker off, service workers
 * blocked) and the seal at the end (the proxy cuts every tunnel before the page closes) stand
 * between an https page and a write. The site is a loopback TLS server with a self-signed
 * certificate that this test's browser accepts; it records every request it decrypts.
 */
let server: Server;
let origin: string;
/** A second TLS site on 127.0.0.2: cross-site to the first, so its iframe runs out of process. */
let crossSite: Server;
let crossOrigin: string;
let policy: OperatorNetworkPolicy;
const hits: { method: string; path: string }[] = [];
const providers: { shutdown(): Promise<void> }[] = [];

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>t</title></head><body><p id="p">unload page</p><a id="next" href="/next">next</a><script>
const send = (why) => { navigator.sendBeacon("/sink?" + why + "-beacon", "x"); fetch("/sink?" + why + "-keepalive", { method: "POST", body: "x", keepalive: true }).catch(() => {}); };
addEventListener("pagehide", () => send("pagehide"));
addEventListener("unload", () => send("unload"));
addEventListener("beforeunload", () => send("beforeunload"));
addEventListener("visibilitychange", () => send("visibility"));
fetch("/sink?page-post", { method: "POST", body: "x" }).catch(() => {});
fetch("/sink?page-put", { method: "PUT", body: "x" }).catch(() => {});
fetch("/control").catch(() => {});
try { new SharedWorker(URL.createObjectURL(new Blob(['fetch("' + location.origin + '/sink?shared", { method: "POST", body: "x" })'], { type: "text/javascript" }))); } catch (e) { document.getElementById("p").textContent += " no-shared-worker"; }
new Worker(URL.createObjectURL(new Blob(['fetch("' + location.origin + '/sink?dedicated", { method: "POST", body: "x" }).catch(() => {})'], { type: "text/javascript" })));
navigator.serviceWorker?.register("/sw.js").then(() => fetch("/control?sw-registered")).catch(() => {});
const f = document.createElement("iframe"); f.src = "/frame"; document.body.append(f);
</script></body></html>`;

before(async () => {
  const dir = mkdtempSync(join(tmpdir(), "errand-tls-"));
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      join(dir, "key.pem"),
      "-out",
      join(dir, "cert.pem"),
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
    ],
    { stdio: "pipe" },
  );
  server = createServer({ key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) }, (req, res) => {
    req.resume();
    req.on("end", () => {
      const path = req.url ?? "/";
      hits.push({ method: req.method ?? "GET", path });
      if (path.startsWith("/outer"))
        return void res
          .writeHead(200, { "content-type": "text/html" })
          .end(`<!doctype html><p id="p">outer page</p><iframe src="${crossOrigin}/unload"></iframe>`);
      if (path.startsWith("/unload") || path.startsWith("/next"))
        return void res.writeHead(200, { "content-type": "text/html" }).end(path.startsWith("/next") ? `<!doctype html><p id="p">next page</p>` : PAGE);
      if (path === "/frame")
        return void res
          .writeHead(200, { "content-type": "text/html" })
          .end(`<script>fetch("/sink?iframe", { method: "POST", body: "x" }).catch(() => {}); navigator.sendBeacon("/sink?iframe-beacon", "x");</script>`);
      if (path === "/sw.js")
        return void res
          .writeHead(200, { "content-type": "text/javascript" })
          .end(`self.addEventListener("install", () => fetch("/sink?sw", { method: "POST", body: "x" }));`);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      join(dir, "key2.pem"),
      "-out",
      join(dir, "cert2.pem"),
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.2",
      "-addext",
      "subjectAltName=IP:127.0.0.2",
    ],
    { stdio: "pipe" },
  );
  crossSite = createServer({ key: readFileSync(join(dir, "key2.pem")), cert: readFileSync(join(dir, "cert2.pem")) }, (req, res) => {
    req.resume();
    req.on("end", () => {
      hits.push({ method: req.method ?? "GET", path: `cross-site ${req.url ?? "/"}` });
      if ((req.url ?? "").startsWith("/unload")) return void res.writeHead(200, { "content-type": "text/html" }).end(PAGE);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => crossSite.listen(0, "127.0.0.2", resolve));
  crossOrigin = `https://127.0.0.2:${(crossSite.address() as AddressInfo).port}`;
  const allowances = parseAllowPrivate([origin.slice("https://".length), crossOrigin.slice("https://".length)]);
  assert.ok(allowances.ok);
  const resolver = createStaticResolver({});
  policy = { resolver, allowPrivate: allowances.value, guard: createPolicyNetworkGuard({ resolver, allowPrivate: allowances.value }) };
});

after(async () => {
  for (const provider of providers) await provider.shutdown();
  for (const site of [server, crossSite]) {
    site.closeAllConnections();
    await new Promise<void>((resolve) => site.close(() => resolve()));
  }
});

const writes = () => hits.filter((h) => !["GET", "HEAD", "OPTIONS"].includes(h.method)).map((h) => `${h.method} ${h.path}`);

function executor() {
  const provider = createLocalProvider({ env: process.env, proxyForSession: (scope) => startSessionProxy(policy, scope), acceptAnyCertificateForTests: true });
  providers.push(provider);
  return createExecutor({ provider, guard: policy.guard, secrets: memoryVault(), defaultTaskTimeoutMs: 20_000, defaultStepTimeoutMs: 5_000 });
}

describe("read_only over https: zero writes on the wire", () => {
  test("page, iframe, workers, beacons, keepalive and pagehide/unload/visibility handlers send no write over https while errand runs and closes the page", async () => {
    const before = writes().length;
    const { receipt } = await executor()(
      makeTask({
        target: { url: `${origin}/unload` },
        steps: [
          { action: "expect_text", text: "unload page" },
          { action: "wait_for", selector: "#never", timeoutMs: 1_500 },
        ],
      }),
      makeContext(),
    );
    assert.equal(receipt.error?.code, "timeout", JSON.stringify(receipt.error));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    assert.ok(
      hits.some((h) => h.method === "GET" && h.path === "/control"),
      "control: the page's own GET never reached the TLS site, so zero writes would prove nothing",
    );
    assert.deepEqual(writes().slice(before), [], "a write reached the https site");
    assert.ok(receipt.network.nonGetAborted >= 2, `the receipt counts no stopped write: ${JSON.stringify(receipt.network)}`);
  });

  // The page navigating away (a goto step, a link click): the old document's pagehide, unload and
  // visibilitychange beacons and keepalive POSTs are paused by the DevTools Fetch domain without a
  // networkId, and Playwright continues those without asking route(); inside an https tunnel the
  // proxy cannot see the method. Before errand's own Fetch guard on the page's target
  // (unloadGuard.ts) all 6 reached the site, for goto and click alike.
  test("the same handlers send no write over https when the page navigates away (goto step or link click)", async () => {
    for (const leave of [
      { action: "goto", url: `${origin}/next` },
      { action: "click", selector: "#next" },
    ]) {
      const before = writes().length;
      // Generous budgets: nothing here is about time, and a loaded machine makes each page slow.
      const { receipt } = await executor()(
        makeTask({
          timeouts: { taskMs: 60_000, stepMs: 20_000 },
          target: { url: `${origin}/unload` },
          steps: [{ action: "expect_text", text: "unload page" }, leave, { action: "expect_text", text: "next page" }],
        }),
        makeContext(),
      );
      assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      assert.ok(
        hits.some((h) => h.method === "GET" && h.path === "/next"),
        "control: the next page never reached the TLS site",
      );
      assert.deepEqual(writes().slice(before), [], `${leave.action}: a write reached the https site`);
      // Stopped by the page's own Fetch guard or by the read_only browser's, whichever paused it first.
      const unloadBlocks = receipt.network.blocked.filter(
        (b) => b.code === "method_blocked" && /(pagehide|unload|visibility)-(beacon|keepalive)/.test(b.url.text),
      );
      assert.ok(
        unloadBlocks.length >= 1,
        `${leave.action}: the receipt does not count the writes stopped at unload: ${JSON.stringify(receipt.network.blocked)}`,
      );
    }
  });

  // A cross-site iframe runs in its own renderer and DevTools target, which is torn down around its
  // unload when the page navigates away: the per-target guard's pauses are then released unanswered.
  // Measured over https before the read_only browser's browser-wide stop (browserWriteGuard.ts):
  // 2-3 of the iframe's 8 unload-time writes reached the site in 9 of 10 runs (24 writes); after it,
  // 0 in 69 runs (20 in a row on one warm browser, 10 on a fresh browser each, the rest while tuning).
  test("a cross-site iframe's unload handlers send no write over https when the page navigates away", async () => {
    const before = writes().length;
    const { receipt } = await executor()(
      makeTask({
        timeouts: { taskMs: 60_000, stepMs: 20_000 },
        allowedHosts: ["127.0.0.2"],
        target: { url: `${origin}/outer` },
        steps: [
          { action: "expect_text", text: "outer page" },
          { action: "goto", url: `${origin}/next` },
          { action: "expect_text", text: "next page" },
        ],
      }),
      makeContext(),
    );
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    assert.ok(
      hits.some((h) => h.path === "cross-site /unload"),
      "control: the cross-site iframe never loaded",
    );
    assert.deepEqual(writes().slice(before), [], "a write from the cross-site iframe reached its site");
    const stopped = receipt.network.blocked.filter(
      (b) => b.code === "method_blocked" && b.url.text.startsWith(crossOrigin) && /(pagehide|unload|visibility)-(beacon|keepalive)/.test(b.url.text),
    );
    assert.ok(stopped.length >= 1, `the receipt does not list the iframe's stopped unload-time writes: ${JSON.stringify(receipt.network.blocked)}`);
    assert.equal(
      new Set(receipt.network.blocked.map((b) => `${b.method} ${b.url.text}`)).size,
      receipt.network.blocked.length,
      `a stopped write is listed twice: ${JSON.stringify(receipt.network.blocked)}`,
    );
  });
});
