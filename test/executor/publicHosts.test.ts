import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createExecutor } from "../../src/executor/createExecutor.js";
import { createPolicyNetworkGuard } from "../../src/executor/policyNetworkGuard.js";
import { startSessionProxy } from "../../src/app/buildExecutor.js";
import type { OperatorNetworkPolicy } from "../../src/app/operatorNetworkPolicy.js";
import { parseAllowPrivate } from "../../src/policy/parseAllowPrivate.js";
import { createStaticResolver } from "../../src/policy/staticResolver.js";
import { createLocalProvider } from "../../src/providers/local/localProvider.js";
import { startRecordingServer } from "../fixtures/fixtureSite.js";
import type { FixtureServer } from "../fixtures/fixtureSite.js";
import { namespaceUnavailable, startPublicHosts } from "../fixtures/publicHostNamespace.js";
import type { PublicHosts } from "../fixtures/publicHostNamespace.js";
import { makeContext, makeTask } from "./attemptSupport.js";
import { memoryVault } from "./memoryVault.js";

/**
 * The boundary against PUBLIC hosts, from the attacker's side. The hosts are real addresses
 * (203.0.114.x, ordinary global unicast to errand's policy) inside a network namespace this test
 * creates, so the egress proxy admits them like any site on the internet; a child process in the
 * namespace counts every TCP connection and UDP datagram reaching them. The task's own site is on
 * 127.0.0.1 under an operator allowance. Each test has a control that does reach a namespace host
 * (a subresource, allowed by design), so a zero count means "stopped", not "unreachable".
 */
const TURN = "203.0.114.10";
const POPUP = "203.0.114.11";
const CDN = "203.0.114.12";
const PORTS = [80, 443, 3478];

const unavailable = namespaceUnavailable();
if (unavailable !== null) console.log(`# SKIPPED public-host namespace tests: ${unavailable}`);

let hosts: PublicHosts;
let site: FixtureServer;
let policy: OperatorNetworkPolicy;
const providers: { shutdown(): Promise<void> }[] = [];
/** The control subresource, requested after load: the namespace listener never answers, and the page must still finish loading. */
const control = (url: string) => `<script>addEventListener("load", () => { new Image().src = "${url}"; });</script>`;
const html = (body: string) => `<!doctype html><html><head><meta charset="utf-8"><title>t</title></head><body>${body}</body></html>`;

function executor() {
  const provider = createLocalProvider({ env: process.env, proxyForSession: (scope) => startSessionProxy(policy, scope) });
  providers.push(provider);
  return createExecutor({ provider, guard: policy.guard, secrets: memoryVault(), defaultTaskTimeoutMs: 25_000, defaultStepTimeoutMs: 5_000 });
}

async function countAt(ip: string): Promise<{ tcp: number; udp: number }> {
  const all = await hosts.counts();
  let tcp = 0;
  let udp = 0;
  for (const [spec, count] of Object.entries(all)) {
    if (!spec.startsWith(`${ip}:`)) continue;
    tcp += count.tcp;
    udp += count.udp;
  }
  return { tcp, udp };
}

describe("public hosts in a network namespace: WebRTC TCP and off-list navigations never reach them", { skip: unavailable ?? false }, () => {
  before(async () => {
    hosts = await startPublicHosts([TURN, POPUP, CDN], PORTS);
    site = await startRecordingServer("127.0.0.1", {
      "/webrtc": (_req, res) =>
        res.writeHead(200, { "content-type": "text/html" }).end(
          html(`<p id="p">start</p><script>
const say = (t) => { document.getElementById("p").textContent += " " + t; };
(async () => {
  const tcp = (url) => ({ urls: url, username: "u", credential: "p" });
  try {
    const pc = new RTCPeerConnection({ iceTransportPolicy: "relay", iceServers: [
      tcp("turn:${TURN}:443?transport=tcp"), tcp("turn:${TURN}:80?transport=tcp"), tcp("turns:turn.example:443?transport=tcp"),
      tcp("turn:turn.example:3478?transport=tcp"), tcp("turn:${TURN}:3478?transport=udp"), { urls: "stun:${TURN}:3478" } ] });
    pc.createDataChannel("x");
    const offer = await pc.createOffer();
    await pc.setLocalDescription(offer);
    const open = new RTCPeerConnection();
    open.createDataChannel("y");
    await open.setLocalDescription(await open.createOffer());
    const peer = new RTCPeerConnection();
    await peer.setRemoteDescription(open.localDescription);
    await open.setRemoteDescription(await peer.createAnswer());
    for (const c of ["candidate:1 1 tcp 1518280447 ${TURN} 443 typ host tcptype passive",
                     "candidate:2 1 tcp 1518280447 ${TURN} 80 typ host tcptype passive",
                     "candidate:3 1 udp 2122260223 ${TURN} 3478 typ host"]) {
      await open.addIceCandidate({ candidate: c, sdpMid: "0", sdpMLineIndex: 0 }).catch((e) => say("add:" + e.name));
    }
    say("attacking");
  } catch (e) { say("error:" + e.name); }
  setTimeout(() => say("webrtc-finished"), 6000);
})();
</script>${control(`http://${CDN}/control.png`)}`),
        ),
      "/popups": (_req, res) =>
        res.writeHead(200, { "content-type": "text/html" }).end(
          html(`<button id="open" onclick="window.open('http://popup.example/window-open')">open</button>
<a id="link" target="_blank" href="http://popup.example/blank-link">link</a>
<form id="f" target="_blank" action="https://popup.example/blank-form"><input name="q" value="1"><button id="submit">go</button></form>
<form id="g" target="_blank" action="http://popup.example/blank-form"><input name="q" value="1"><button id="submit-http">go</button></form>
<button id="noopener" onclick="window.open('https://${POPUP}/noopener', '_blank', 'noopener')">noopener</button>
<a id="same-tab" href="http://popup.example/same-tab">same tab</a>
<a id="same-tab-https" href="https://popup.example/same-tab">same tab over https</a>
<button id="location" onclick="location.href='https://popup.example/location'">location</button>
${control("https://cdn.example/control.png")}<p id="p">popups</p>`),
        ),
    });
    const allowances = parseAllowPrivate([site.origin.slice("http://".length)]);
    assert.ok(allowances.ok);
    const resolver = createStaticResolver({ "turn.example": [TURN], "popup.example": [POPUP], "cdn.example": [CDN] });
    policy = { resolver, allowPrivate: allowances.value, guard: createPolicyNetworkGuard({ resolver, allowPrivate: allowances.value }) };
  });

  after(async () => {
    for (const provider of providers) await provider.shutdown();
    await site?.close();
    await hosts?.close();
  });

  test("WebRTC to a public TURN server (TCP and TLS on 443 and 80, UDP, STUN) and forged TCP candidates: zero connections and datagrams", async () => {
    const control = await countAt(CDN);
    const { receipt } = await executor()(
      makeTask({ target: { url: `${site.origin}/webrtc` }, steps: [{ action: "expect_text", text: "webrtc-finished", selector: "#p", timeoutMs: 20_000 }] }),
      makeContext(),
    );
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
    assert.ok((await countAt(CDN)).tcp > control.tcp, "control: the page's own image did not reach the namespace, so a zero below would prove nothing");
    assert.deepEqual(await countAt(TURN), { tcp: 0, udp: 0 }, "WebRTC reached the public TURN host");
    const refused = receipt.network.blocked.filter((b) => b.code === "webrtc_blocked");
    assert.ok(refused.length >= 1, `the proxy recorded no WebRTC refusal: ${JSON.stringify(receipt.network.blocked)}`);
  });

  test("http main-frame navigations, popups, window.open and target=_blank links and forms to an off-list public host send nothing to it", async () => {
    const execute = executor();
    for (const selector of ["#open", "#link", "#submit-http", "#same-tab"]) {
      const control = await countAt(CDN);
      const { receipt } = await execute(
        makeTask({
          target: { url: `${site.origin}/popups` },
          steps: [
            { action: "click", selector },
            { action: "wait_for", selector: "#never", timeoutMs: 1_500 },
          ],
        }),
        makeContext(),
      );
      assert.notEqual(receipt.status, "PASS", selector);
      assert.ok(receipt.network.navigationsBlocked >= 1, `${selector}: ${JSON.stringify(receipt.network)}`);
      assert.ok((await countAt(CDN)).tcp > control.tcp, `${selector}: control image did not reach the namespace`);
      assert.deepEqual(await countAt(POPUP), { tcp: 0, udp: 0 }, `${selector}: a navigation reached the off-list public host`);
    }
    // A goto step to the off-list public host is refused before the browser goes there.
    const goto = await execute(
      makeTask({ target: { url: `${site.origin}/popups` }, steps: [{ action: "goto", url: "https://popup.example/goto" }] }),
      makeContext(),
    );
    assert.equal(goto.receipt.error?.code, "navigation_blocked", JSON.stringify(goto.receipt.error));
    assert.deepEqual(await countAt(POPUP), { tcp: 0, udp: 0 }, "a navigation reached the off-list public host");
  });

  // Chromium 156 opens a tunnel to an https navigation's host when the navigation starts, before
  // route() sees the request (net-log: is_preconnect with the navigation's URL). Before the proxy
  // held such tunnels this test counted 1 connection per navigation at the off-list host (up to 3
  // in earlier runs). The page's own https image from another public host (cdn.example) must still
  // arrive: subresources from other hosts are allowed by design, so their tunnels are not held back.
  test("https navigations (noopener window.open, target=_blank form, location, link) to an off-list public host open no connection to it", async () => {
    const execute = executor();
    for (const selector of ["#submit", "#noopener", "#location", "#same-tab-https"]) {
      const before = await countAt(POPUP);
      const control = await countAt(CDN);
      const { receipt } = await execute(
        makeTask({
          target: { url: `${site.origin}/popups` },
          steps: [
            { action: "click", selector },
            { action: "wait_for", selector: "#never", timeoutMs: 1_500 },
          ],
        }),
        makeContext(),
      );
      assert.ok(receipt.network.navigationsBlocked >= 1, JSON.stringify(receipt.network));
      assert.ok(
        (await countAt(CDN)).tcp > control.tcp,
        `${selector}: the page's https image from another public host did not arrive, so a zero below would prove nothing`,
      );
      assert.deepEqual(await countAt(POPUP), before, `${selector}: the https host received a connection`);
      const held = receipt.network.blocked.filter(
        (b) => b.resourceType === "connection" && (b.url.text.startsWith("popup.example:443") || b.url.text.startsWith(`${POPUP}:443`)),
      );
      assert.ok(held.length >= 1, `${selector}: the receipt does not count the refused early tunnel: ${JSON.stringify(receipt.network.blocked)}`);
    }
  });
});
