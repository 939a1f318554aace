// Steps inside iframes ("frame"). On loopback a cross-site iframe cannot load under errand (it hands
// the main document to the browser itself, and Chromium's Local Network Access checks then refuse a
// loopback iframe), so the shop, the payment provider and the stranger are public-looking addresses
// in a network namespace (test/fixtures/publicHostNamespace.ts), reached through errand's egress
// proxy, all admitted by the network policy; a private service (a counting listener on 127.0.0.2:80)
// stands for what no frame may reach. Needs root and `ip netns`; skips with a notice otherwise.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createExecutor } from "../../src/executor/createExecutor.js";
import type { ExecuteTask } from "../../src/executor/executeTaskTypes.js";
import { lookAtPage } from "../../src/executor/lookAtPage.js";
import { createPolicyNetworkGuard } from "../../src/executor/policyNetworkGuard.js";
import { startSessionProxy } from "../../src/app/buildExecutor.js";
import type { OperatorNetworkPolicy } from "../../src/app/operatorNetworkPolicy.js";
import { createStaticResolver } from "../../src/policy/staticResolver.js";
import { createLocalProvider } from "../../src/providers/local/localProvider.js";
import type { BrowserProvider } from "../../src/providers/providerTypes.js";
import { namespaceUnavailable, startPublicHosts } from "../fixtures/publicHostNamespace.js";
import type { PublicHosts } from "../fixtures/publicHostNamespace.js";
import { startCountingListener } from "../fixtures/countingListeners.js";
import type { CountingListener } from "../fixtures/countingListeners.js";
import { makeContext, makeTask } from "./attemptSupport.js";
import { memoryVault } from "./memoryVault.js";

const SHOP_IP = "203.0.114.50";
const PAY_IP = "203.0.114.51";
const STRANGER_IP = "203.0.114.52";
/** Names for the addresses (the static resolver's), since allowedHosts names hosts, not IPs. */
const SHOP = "shop.example";
const PAY = "pay.example";
const STRANGER = "stranger.example";
/** A public-looking name that resolves to a private address. */
const INTRANET = "intranet.shop.example";
const html = (body: string) => `<!doctype html><html><head><title>Checkout</title></head><body>${body}</body></html>`;
/** The card form a payment provider serves in the shop's iframe; paying shows what was paid with. */
const CARD = html(
  `<label>Card <input id="card"></label><button id="pay" onclick="document.getElementById('paid').textContent='paid with '+document.getElementById('card').value">Pay 99.00 EUR</button><p id="paid"></p>`,
);

const unavailable = namespaceUnavailable();
if (unavailable !== null) console.log(`# SKIPPED frame step tests: ${unavailable}`);

let hosts: PublicHosts;
/** A private service on loopback, named by a page's iframe: nothing may reach it. */
let intranet: CountingListener;
let provider: BrowserProvider;
let execute: ExecuteTask;

describe("steps inside iframes (frame), in local Chromium", { skip: unavailable ?? false, timeout: 180_000 }, () => {
  before(async () => {
    // Port 80, so the policy's port rule is not what refuses it: only the address is.
    intranet = await startCountingListener("127.0.0.2", 80);
    hosts = await startPublicHosts([SHOP_IP, PAY_IP, STRANGER_IP], [80], {
      [`${SHOP_IP}:80/checkout`]: html(`<h1>Checkout</h1><iframe id="payment" src="http://${PAY}/card"></iframe>`),
      [`${SHOP_IP}:80/checkout-nested`]: html(`<h1>Checkout</h1><iframe id="outer" src="http://${PAY}/wrapper"></iframe>`),
      [`${SHOP_IP}:80/checkout-elsewhere`]: html(`<h1>Checkout</h1><iframe id="payment" src="http://${STRANGER}/card"></iframe>`),
      [`${SHOP_IP}:80/checkout-private`]: html(
        `<h1>Checkout</h1><iframe id="by-address" src="http://127.0.0.2/card"></iframe><iframe id="by-name" src="http://${INTRANET}/card"></iframe>`,
      ),
      [`${SHOP_IP}:80/checkout-with-offers`]: html(
        `<h1>Checkout</h1><iframe id="payment" src="http://${PAY}/card"></iframe><iframe id="offers" src="http://${STRANGER}/offers"></iframe>`,
      ),
      [`${STRANGER_IP}:80/offers`]: html(`<label>Offer 5521 <input id="offer-code"></label><iframe id="deeper" src="http://${PAY}/card"></iframe>`),
      [`${PAY_IP}:80/card`]: CARD,
      [`${PAY_IP}:80/wrapper`]: html(`<iframe id="inner" src="/card"></iframe>`),
      [`${STRANGER_IP}:80/card`]: CARD,
    });
    const resolver = createStaticResolver({ [SHOP]: [SHOP_IP], [PAY]: [PAY_IP], [STRANGER]: [STRANGER_IP], [INTRANET]: ["127.0.0.2"] });
    const policy: OperatorNetworkPolicy = { resolver, allowPrivate: [], guard: createPolicyNetworkGuard({ resolver, allowPrivate: [] }) };
    provider = createLocalProvider({ env: process.env, proxyForSession: (scope) => startSessionProxy(policy, scope) });
    execute = createExecutor({ provider, guard: policy.guard, secrets: memoryVault(), defaultTaskTimeoutMs: 40_000, defaultStepTimeoutMs: 8_000 });
  });

  after(async () => {
    await provider?.shutdown();
    await hosts?.close();
    await intranet?.close();
  });

  test("a payment iframe on a second task host: fill, click and expect_text in the frame PASS", async () => {
    const { receipt } = await execute(
      makeTask({
        target: { url: `http://${SHOP}/checkout` },
        allowedHosts: [PAY],
        risk: "reversible_write",
        approved: true,
        steps: [
          { action: "fill", frame: "#payment", selector: "#card", value: "4242" },
          { action: "click", frame: ["#payment"], selector: "#pay" },
          { action: "expect_text", frame: "#payment", selector: "#paid", text: "paid with 4242", match: "exact" },
        ],
      }),
      makeContext(),
    );
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
    assert.equal(receipt.mutationBoundary, "crossed");
  });

  test("look lists the payment frame on a task host with its fields and the frame a step names, and a frame elsewhere by origin only though it loaded; a task built from the look PASSes", async () => {
    const strangerLoads = async () => (await hosts.counts())[`${STRANGER_IP}:80`]?.tcp ?? 0;
    const loadsBefore = await strangerLoads();
    const looked = await lookAtPage(execute, { url: `http://${SHOP}/checkout-with-offers`, allowedHosts: [PAY] });
    assert.ok(looked.ok, JSON.stringify(looked));
    const frames = looked.outline.frames ?? [];
    assert.deepEqual(
      frames.map((f) => [
        f.frame,
        f.origin.text,
        f.loaded,
        f.forms?.flatMap((form) => [...form.fields.map((x) => x.selector), ...form.buttons.map((b) => b.selector)]),
      ]),
      [
        [["#payment"], `http://${PAY}`, undefined, ["#card", "#pay"]],
        [["#offers"], `http://${STRANGER}`, undefined, undefined],
      ],
      "the frame the stranger holds (on a task host) is not listed either: nothing inside the stranger's frame is looked at",
    );
    assert.ok((await strangerLoads()) > loadsBefore, "the stranger's frame did load: the network policy admits it");
    const json = JSON.stringify(looked.outline);
    assert.ok(!json.includes("5521") && !json.includes("offer-code") && !json.includes("deeper"), "nothing is read from the stranger's frame");

    const payment = frames[0];
    const { receipt } = await execute(
      makeTask({
        target: { url: `http://${SHOP}/checkout-with-offers` },
        allowedHosts: [PAY],
        risk: "reversible_write",
        approved: true,
        steps: [
          { action: "fill", frame: payment?.frame, selector: payment?.forms?.[0]?.fields[0]?.selector, value: "4242" },
          { action: "click", frame: payment?.frame, selector: payment?.forms?.[0]?.buttons[0]?.selector },
          { action: "expect_text", frame: payment?.frame, selector: "#paid", text: "paid with 4242", match: "exact" },
        ],
      }),
      makeContext(),
    );
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
  });

  test("nested frames are named outermost first", async () => {
    const { receipt } = await execute(
      makeTask({
        target: { url: `http://${SHOP}/checkout-nested` },
        allowedHosts: [PAY],
        steps: [{ action: "expect_text", frame: ["#outer", "#inner"], selector: "#pay", text: "Pay 99.00 EUR" }],
      }),
      makeContext(),
    );
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
  });

  test("a frame whose origin is not a task host fails the step naming the origin; nothing is typed or clicked there and the write's boundary stays uncrossed", async () => {
    const connections = async (port: number) => (await hosts.counts())[`${STRANGER_IP}:${port}`]?.tcp ?? 0;
    const loads = await connections(80);
    let boundaries = 0;
    const { receipt } = await execute(
      makeTask({
        target: { url: `http://${SHOP}/checkout-elsewhere` },
        allowedHosts: [PAY],
        risk: "reversible_write",
        approved: true,
        steps: [
          { action: "fill", frame: "#payment", selector: "#card", value: "4242" },
          { action: "click", frame: "#payment", selector: "#pay" },
          { action: "expect_text", text: "Checkout" },
        ],
      }),
      makeContext({ beforeMutationBoundary: () => ((boundaries += 1), Promise.resolve()) }),
    );
    assert.equal(receipt.status, "BLOCKED", "stopped before the write's boundary");
    assert.equal(receipt.error?.step, 0);
    assert.equal(receipt.error?.code, "navigation_blocked", JSON.stringify(receipt.error));
    assert.ok(receipt.error?.message.includes(`http://${STRANGER}`), receipt.error?.message);
    assert.equal(boundaries, 0, "the write's boundary was not crossed");
    assert.ok((await connections(80)) > loads, "the stranger's frame did load: the network policy admits it");
  });

  test("attacker side: a frame on a private address, by its address or by a task host's name resolving to it, is never loaded; a write into it stops before its boundary; look reads nothing from it", async () => {
    const write = (frame: string, allowedHosts: string[]) =>
      makeTask({
        target: { url: `http://${SHOP}/checkout-private` },
        allowedHosts,
        risk: "reversible_write",
        approved: true,
        steps: [
          { action: "fill", frame, selector: "#card", value: "4242", timeoutMs: 3_000 },
          { action: "expect_text", text: "Checkout" },
        ],
      });
    let boundaries = 0;
    const context = () => makeContext({ beforeMutationBoundary: () => ((boundaries += 1), Promise.resolve()) });
    // By its address: the policy refuses the frame's document, and the step says the frame holds no page.
    const byAddress = (await execute(write("#by-address", []), context())).receipt;
    assert.equal(byAddress.status, "BLOCKED", JSON.stringify(byAddress.error));
    assert.deepEqual([byAddress.error?.step, byAddress.error?.code], [0, "navigation_blocked"], JSON.stringify(byAddress.error));
    assert.match(byAddress.error?.message ?? "", /holds no page from the web/, "no advice to add a host: the host is not what stops it");
    assert.ok(
      byAddress.network.blocked.some((b) => b.code === "ip_blocked" && b.url.text === "http://127.0.0.2/card"),
      JSON.stringify(byAddress.network.blocked),
    );
    // By a name the task itself admits: the egress proxy refuses the private answer, the frame keeps
    // its address with errand's refusal in it, and the step finds no field there (a timeout).
    const byName = (await execute(write("#by-name", [INTRANET]), context())).receipt;
    assert.equal(byName.status, "BLOCKED", JSON.stringify(byName.error));
    assert.deepEqual([byName.error?.step, byName.error?.code], [0, "timeout"], JSON.stringify(byName.error));
    assert.ok(
      byName.network.blocked.some((b) => b.code === "dns_private_answer"),
      JSON.stringify(byName.network.blocked),
    );
    assert.equal(boundaries, 0, "neither write crossed its boundary");

    const looked = await lookAtPage(execute, { url: `http://${SHOP}/checkout-private`, allowedHosts: [INTRANET] });
    assert.ok(looked.ok, JSON.stringify(looked));
    assert.deepEqual(
      looked.outline.frames?.map((f) => [f.frame, f.origin.text, f.loaded, f.forms?.length]),
      [
        [["#by-address"], "http://127.0.0.2", false, undefined],
        [["#by-name"], `http://${INTRANET}`, undefined, 0],
      ],
    );
    assert.deepEqual([intranet.tcpConnections(), intranet.udpDatagrams()], [0, 0], "the private address received nothing");
  });
});
