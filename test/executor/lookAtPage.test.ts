// look and failure context on local Chromium: the outline's selectors each match one element and
// work as-is in a task (a task built only from them PASSes on the bundled demo site), values are
// never read, a failed selector comes back with candidates including the right one, and a read_only
// task whose page tried to POST says so in plain words.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createExecutor } from "../../src/executor/createExecutor.js";
import type { ExecuteTask } from "../../src/executor/executeTaskTypes.js";
import { lookAtPage } from "../../src/executor/lookAtPage.js";
import { createLocalProvider } from "../../src/providers/local/localProvider.js";
import { DEMO_PASSWORD, startDemoSite } from "../../src/demo/demoSite.js";
import type { DemoSite } from "../../src/demo/demoSite.js";
import type { PageOutline } from "../../src/receipt/outlineTypes.js";
import { createHash } from "node:crypto";
import { decodePng } from "../fixtures/decodePng.js";
import { startRecordingServer } from "../fixtures/fixtureSite.js";
import type { FixtureServer } from "../fixtures/fixtureSite.js";
import { makeContext, makeTask } from "./attemptSupport.js";
import { loopbackGuard } from "./loopbackGuard.js";
import { memoryVault } from "./memoryVault.js";

const provider = createLocalProvider({ env: process.env });
let demo: DemoSite;
let site: FixtureServer;
/** A second loopback host, which no look here names: its frame is listed by origin only. */
let other: FixtureServer;
let execute: ExecuteTask;

const html = (body: string) => `<!doctype html><html><head><title>Fixture forms</title></head><body>${body}</body></html>`;

before(async () => {
  demo = await startDemoSite();
  other = await startRecordingServer(
    "127.0.0.2",
    {},
    (_req, res) => void res.writeHead(200, { "content-type": "text/html" }).end(html(`<label>Other host 5521 <input id="other-field"></label>`)),
  );
  site = await startRecordingServer("127.0.0.1", {
    "/checkout": (_req, res) =>
      void res
        .writeHead(200, { "content-type": "text/html" })
        .end(
          html(
            `<h1>Checkout</h1><iframe id="card-frame" src="/card"></iframe><iframe title="offers" src="${other.origin}/ad"></iframe><iframe srcdoc="<p>inline</p>"></iframe>`,
          ),
        ),
    "/card": (_req, res) =>
      void res
        .writeHead(200, { "content-type": "text/html" })
        .end(
          html(
            `<form id="card-form"><label>Card <input id="card" name="card"></label><button id="pay" type="button" onclick="document.getElementById('paid').textContent='paid with '+document.getElementById('card').value">Pay</button></form><p id="paid"></p><iframe name="zip-frame" src="/zip"></iframe>`,
          ),
        ),
    "/zip": (_req, res) => void res.writeHead(200, { "content-type": "text/html" }).end(html(`<label>ZIP <input id="zip"></label>`)),
    "/masked": (_req, res) =>
      void res.writeHead(200, { "content-type": "text/html" }).end(
        html(`<style>body{margin:0} input{position:absolute;left:0;width:100%;border:0;padding:0;margin:0;background:#00ff00;color:#000;font-size:40px}</style>
          <input id="pw" type="password" value="pw-value-9917" style="top:0;height:60px">
          <input id="plain" type="text" value="visible text" style="top:100px;height:400px">`),
      ),
    "/twins": (_req, res) =>
      void res.writeHead(200, { "content-type": "text/html" }).end(
        html(`<h1>Two searches</h1>
          <form action="/a"><input name="q" value="prefilled-value-7731"><button>Go</button></form>
          <form action="/b"><label>Country <select name="country"><option value="se">Sweden</option><option value="no">Norway</option></select></label><input type="hidden" name="token" value="hidden-value-5529"><input type="password" name="pin" value="pw-value-9917"><button>Go</button></form>
          <div id="x y">odd id</div><a href="/next">Next page</a>`),
      ),
  });
  execute = createExecutor({
    provider,
    guard: loopbackGuard([demo.origin, site.origin]),
    secrets: memoryVault({ DEMO_PASSWORD: { sites: [demo.origin], value: DEMO_PASSWORD } }),
    defaultTaskTimeoutMs: 20_000,
    defaultStepTimeoutMs: 3_000,
  });
});
after(async () => {
  await provider.shutdown();
  await demo.close();
  await site.close();
  await other.close();
});

async function look(url: string): Promise<PageOutline> {
  const result = await lookAtPage(execute, { url });
  assert.ok(result.ok, JSON.stringify(result));
  return result.outline;
}

describe("look", { timeout: 120_000 }, () => {
  test("outlines the demo settings form with checked selectors, and a task built only from them PASSes", async () => {
    const outline = await look(`${demo.origin}/settings`);
    assert.equal(outline.title.untrusted, true);
    assert.equal(outline.title.text, "Settings");
    const form = outline.forms[0];
    assert.ok(form !== undefined);
    const byType = Object.fromEntries(form.fields.map((f) => [f.type, f]));
    assert.equal(byType["text"]?.label.text, "Display name");
    assert.equal(byType["password"]?.label.text, "Password");
    const save = form.buttons.find((b) => b.text.text === "Save");
    assert.ok(byType["text"]?.selector && byType["password"]?.selector && save?.selector);

    const { receipt } = await execute(
      makeTask({
        target: { url: `${demo.origin}/settings` },
        risk: "reversible_write",
        approved: true,
        secretApproval: true,
        steps: [
          { action: "fill", selector: byType["text"].selector, value: "Lovelace" },
          { action: "fill_secret", selector: byType["password"].selector, secret: "DEMO_PASSWORD" },
          { action: "click", selector: save.selector },
          { action: "expect_text", text: "Display name is now Lovelace" },
        ],
      }),
      makeContext(),
    );
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
    assert.deepEqual(demo.savedNames.slice(-1), ["Lovelace"]);
  });

  test("twin forms get distinct structural selectors; no field value is read; selects list their options; odd ids stay out of selectors", async () => {
    const outline = await look(`${site.origin}/twins`);
    const json = JSON.stringify(outline);
    for (const value of ["prefilled-value-7731", "hidden-value-5529", "pw-value-9917"]) assert.ok(!json.includes(value), `${value} was read`);
    assert.equal(outline.forms.length, 2);
    const selectors = outline.forms.flatMap((f) => [...f.fields.map((x) => x.selector), ...f.buttons.map((b) => b.selector)]);
    assert.ok(selectors.every((s) => s !== null));
    assert.equal(new Set(selectors).size, selectors.length);
    const select = outline.forms[1]?.fields.find((f) => f.type === "select");
    assert.deepEqual(
      select?.options?.map((o) => [o.value, o.label.text]),
      [
        ["se", "Sweden"],
        ["no", "Norway"],
      ],
    );
    assert.deepEqual(
      outline.forms[1]?.fields.map((f) => f.type),
      ["select", "hidden", "password"],
    );
    assert.deepEqual(outline.links[0]?.href, { untrusted: true, text: `${site.origin}/next` });
    assert.ok(!json.includes("#x"), "an id with a space never becomes a selector");
    // Every visible element's selector works as-is in a task step (the hidden field cannot be waited for).
    const visible = outline.forms.flatMap((f) => [...f.fields, ...f.buttons]).filter((x) => x.visible);
    const { receipt } = await execute(
      makeTask({ target: { url: `${site.origin}/twins` }, steps: visible.map((x) => ({ action: "wait_for", selector: x.selector ?? "", timeoutMs: 5000 })) }),
      makeContext(),
    );
    assert.equal(receipt.error, null, JSON.stringify(receipt.error));
  });

  test("a look is refused like a read_only task: a refused destination, unknown fields, a bad URL", async () => {
    const refused = await lookAtPage(execute, { url: "http://127.0.0.1:9/" });
    assert.ok(!refused.ok && refused.kind === "failed");
    assert.equal(refused.status, "BLOCKED");
    const unknown = await lookAtPage(execute, { url: `${demo.origin}/`, click: "#save" });
    assert.ok(!unknown.ok && unknown.kind === "invalid" && unknown.problems[0]?.path === "/click");
    const bad = await lookAtPage(execute, { url: "javascript:alert(1)" });
    assert.ok(!bad.ok && bad.kind === "invalid" && bad.problems[0]?.path === "/url");
  });
});

describe("look and frames", { timeout: 120_000 }, () => {
  test("lists a same-host iframe and the one nested in it with their fields and the frame a step names, and a frame on another loopback host by origin only; a task built from the frame entries PASSes", async () => {
    const outline = await look(`${site.origin}/checkout`);
    const frames = outline.frames ?? [];
    assert.deepEqual(
      frames.map((f) => [f.frame, f.origin.text, f.forms?.flatMap((form) => [...form.fields.map((x) => x.selector), ...form.buttons.map((b) => b.selector)])]),
      [
        [["#card-frame"], site.origin, ["#card", "#pay"]],
        [["#card-frame", 'iframe[name="zip-frame"]'], site.origin, ["#zip"]],
        [["html > body:nth-of-type(1) > iframe:nth-of-type(2)"], other.origin, undefined],
        [["html > body:nth-of-type(1) > iframe:nth-of-type(3)"], "about:srcdoc", undefined],
      ],
    );
    assert.ok(
      frames.every((f) => f.origin.untrusted),
      "origins are addresses: wrapped",
    );
    assert.equal(frames[0]?.forms?.[0]?.fields[0]?.label.text, "Card");
    const json = JSON.stringify(outline);
    assert.ok(!json.includes("5521") && !json.includes("other-field"), "nothing is read from the other host's frame");
    assert.equal(other.hits.length, 0, "and nothing reached it");
    // The top-level outline holds the page's own controls only.
    assert.deepEqual(outline.forms, []);

    const [card, zip] = frames;
    assert.ok(card?.forms !== undefined && zip?.forms !== undefined);
    const { receipt } = await execute(
      makeTask({
        target: { url: `${site.origin}/checkout` },
        steps: [
          { action: "fill", frame: zip.frame, selector: zip.forms[0]?.fields[0]?.selector, value: "11122" },
          { action: "fill", frame: card.frame, selector: card.forms[0]?.fields[0]?.selector, value: "4242" },
          { action: "click", frame: card.frame, selector: card.forms[0]?.buttons[0]?.selector },
          { action: "expect_text", frame: card.frame, selector: "#paid", text: "paid with 4242", match: "exact" },
        ],
      }),
      makeContext(),
    );
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
  });

  test("a frame step's failure names what failed: an iframe selector that matches nothing is a timeout naming it; a mistyped selector inside the frame gets candidates from the frame", async () => {
    const fill = (frame: string, selector: string) =>
      execute(
        makeTask({
          target: { url: `${site.origin}/checkout` },
          steps: [
            { action: "fill", frame, selector, value: "4242", timeoutMs: 1_500 },
            { action: "expect_text", text: "paid" },
          ],
        }),
        makeContext(),
      );
    const noFrame = (await fill("#card-fraem", "#card")).receipt;
    assert.equal(noFrame.error?.code, "timeout");
    assert.match(noFrame.error?.message ?? "", /no iframe matches the frame selector "#card-fraem"/);
    assert.ok(!(noFrame.error?.message ?? "").includes('"#card"'), "the step's own selector was never looked for");
    assert.deepEqual(noFrame.failure?.candidates, [], "no candidates from the wrong document");
    assert.equal(noFrame.failure?.frame, undefined);

    const typo = (await fill("#card-frame", "#crad")).receipt;
    assert.equal(typo.error?.code, "timeout");
    assert.match(typo.error?.message ?? "", /no element matches the selector "#crad"\. failure\.candidates lists selectors errand found in the step's frame/);
    assert.deepEqual(typo.failure?.frame, ["#card-frame"]);
    assert.equal(typo.failure?.url.text, `${site.origin}/card`);
    assert.equal(typo.failure?.candidates[0]?.selector, "#card");
  });

  test("a page without iframes has no frames in its outline", async () => {
    const outline = await look(`${site.origin}/twins`);
    assert.equal(outline.frames, undefined);
  });
});

describe("look screenshot", { timeout: 120_000 }, () => {
  test("password fields are masked in the screenshot (pixel check on a known field); other fields are not; hash and size match the image", async () => {
    const result = await lookAtPage(execute, { url: `${site.origin}/masked`, screenshot: true });
    assert.ok(result.ok && result.screenshot !== undefined, JSON.stringify(result));
    const shot = result.screenshot;
    assert.equal(shot.mimeType, "image/png");
    const image = Buffer.from(shot.data, "base64");
    assert.equal(shot.bytes, image.length);
    assert.equal(shot.sha256, createHash("sha256").update(image).digest("hex"));
    const png = decodePng(image);
    const near = (p: [number, number, number], q: [number, number, number]) => p.every((v, i) => Math.abs(v - (q[i] ?? 0)) <= 8);
    const x = Math.floor(png.width / 2);
    assert.ok(near(png.pixel(x, 20), [255, 0, 255]), `password field pixel ${png.pixel(x, 20).join(",")} is the mask colour`);
    assert.ok(near(png.pixel(5, 40), [255, 0, 255]), "the whole password box is covered");
    assert.ok(near(png.pixel(png.width - 5, 300), [0, 255, 0]), `text field pixel ${png.pixel(png.width - 5, 300).join(",")} is left as it is`);
  });
});

describe("failure context", { timeout: 120_000 }, () => {
  test("a mistyped selector fails in plain words with candidates that include the right one", async () => {
    const { receipt } = await execute(
      makeTask({ target: { url: `${demo.origin}/settings` }, steps: [{ action: "wait_for", selector: "#display-nmae", timeoutMs: 800 }] }),
      makeContext(),
    );
    assert.equal(receipt.status, "FAIL");
    assert.match(receipt.error?.message ?? "", /no element matches the selector "#display-nmae"/);
    assert.equal(receipt.error?.detail?.untrusted, true);
    const failure = receipt.failure;
    assert.ok(failure !== undefined);
    assert.deepEqual(failure.url, { untrusted: true, text: `${demo.origin}/settings` });
    assert.equal(failure.title.text, "Settings");
    assert.ok(failure.candidates.length <= 5);
    assert.equal(failure.candidates[0]?.selector, "#display-name");
    assert.ok(failure.candidates.every((c) => c.label.untrusted));
  });

  test("a read_only task whose page tried to POST says so, and what to change", async () => {
    const { receipt } = await execute(
      makeTask({
        target: { url: `${demo.origin}/settings` },
        steps: [
          { action: "click", selector: "#save" },
          { action: "expect_url", url: `${demo.origin}/saved`, timeoutMs: 1500 },
        ],
      }),
      makeContext(),
    );
    assert.equal(receipt.status, "FAIL");
    assert.ok(receipt.network.nonGetAborted >= 1);
    assert.match(
      receipt.error?.message ?? "",
      /this task is read_only and the page tried to send a POST request \(a form submit, for example\).*mark the task reversible_write with approved: true/,
    );
    assert.ok(!receipt.error?.message.includes("/settings"), "the page-chosen address stays out of errand's message");
    assert.ok(
      receipt.network.blocked.some((b) => b.method === "POST" && b.url.text.endsWith("/settings")),
      "network.blocked names it",
    );
  });
});
