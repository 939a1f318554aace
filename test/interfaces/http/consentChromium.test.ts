// The consent page as the owner meets it: headless Chromium fills the password field and presses
// Approve or Deny (wrong password, right password, lockout). Loopback only: the client's callback is
// a tiny listener on 127.0.0.1, nothing leaves the machine.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { chromium } from "playwright-core";
import type { Browser, Page } from "playwright-core";
import { findChromium } from "../../../src/providers/local/findChromium.js";
import { CALLBACK, OWNER_PASSWORD, startAppServer } from "./support/appHarness.js";
import type { AppHarness } from "./support/appHarness.js";
import { pkcePair } from "./support/oauthDance.js";

const executablePath = findChromium(process.env);

describe("consent page in headless Chromium", { skip: executablePath === null ? "no Chromium installed" : false, timeout: 90_000 }, () => {
  let server: AppHarness & { origin: string };
  let browser: Browser;
  let callbackServer: Server;
  let callback = "";

  before(async () => {
    callbackServer = createServer((_req, res) => res.end("callback reached"));
    await new Promise<void>((resolve) => callbackServer.listen(0, "127.0.0.1", resolve));
    callback = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}/callback`;
    server = await startAppServer({
      settings: {
        extraRedirects: [CALLBACK, callback],
        lockout: { threshold: 3, baseLockMs: 60_000, maxLockMs: 600_000, slowdownStepMs: 20, slowdownMaxMs: 60, forgetMs: 86_400_000 },
      },
    });
    browser = await chromium.launch({ executablePath: executablePath ?? "", headless: true, args: ["--no-sandbox"] });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await new Promise((resolve) => callbackServer?.close(resolve));
  });

  async function authorizeUrl(): Promise<{ url: string; clientId: string; verifier: string }> {
    const registered = (await (
      await fetch(`${server.origin}/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client_name: "ChatGPT (test)", redirect_uris: [callback], token_endpoint_auth_method: "none" }),
      })
    ).json()) as { client_id: string };
    const { verifier, challenge } = await pkcePair();
    const query = new URLSearchParams({
      response_type: "code",
      client_id: registered.client_id,
      redirect_uri: callback,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "st",
      resource: `${server.origin}/mcp`,
    });
    return { url: `${server.origin}/authorize?${query.toString()}`, clientId: registered.client_id, verifier };
  }

  async function newPage(): Promise<Page> {
    const context = await browser.newContext();
    const page = await context.newPage();
    return page;
  }

  test("wrong password is refused on the page; the right one redirects with a code that yields a working token", async () => {
    const { url, clientId, verifier } = await authorizeUrl();
    const page = await newPage();
    await page.goto(url);
    assert.equal(await page.locator("h1").textContent(), "Connect to errand?");
    assert.match((await page.locator(".box").textContent()) ?? "", /ChatGPT \(test\)[\s\S]*127\.0\.0\.1:\d+/);
    assert.equal(await page.locator("input[type=password]").count(), 1);

    await page.fill("input[type=password]", "not the password");
    await page.click("button:text('Approve')");
    await page.waitForLoadState();
    assert.match((await page.locator("[role=alert]").textContent()) ?? "", /Wrong password/);
    assert.ok(page.url().startsWith(server.origin), "still on errand");

    await page.fill("input[type=password]", OWNER_PASSWORD);
    await Promise.all([page.waitForURL((u) => u.href.startsWith(callback)), page.click("button:text('Approve')")]);
    const landed = new URL(page.url());
    assert.equal(landed.searchParams.get("state"), "st");
    const code = landed.searchParams.get("code") ?? "";
    assert.ok(code.startsWith("errand_ac_"));
    const token = await fetch(`${server.origin}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "authorization_code", client_id: clientId, code, code_verifier: verifier, redirect_uri: callback }).toString(),
    });
    assert.equal(token.status, 200);
    await page.context().close();
  });

  test("Deny returns access_denied to the client without asking for the password", async () => {
    const { url } = await authorizeUrl();
    const page = await newPage();
    await page.goto(url);
    await Promise.all([page.waitForURL((u) => u.href.startsWith(callback)), page.click("button:text('Deny')")]);
    assert.equal(new URL(page.url()).searchParams.get("error"), "access_denied");
    await page.context().close();
  });

  test("three wrong passwords lock approvals; a new request then shows only the lock notice", async () => {
    const { url } = await authorizeUrl();
    const page = await newPage();
    await page.goto(url);
    for (let i = 0; i < 3; i += 1) {
      await page.fill("input[type=password]", `wrong password ${i}`);
      await page.click("button:text('Approve')");
      await page.waitForLoadState();
    }
    assert.equal(await page.locator("h1").textContent(), "Too many wrong passwords");
    assert.equal(await page.locator("input[type=password]").count(), 0);
    const again = await newPage();
    const response = await again.goto((await authorizeUrl()).url);
    assert.equal(response?.status(), 429);
    assert.match((await again.locator("[role=alert]").textContent()) ?? "", /locked until/);
    await page.context().close();
    await again.context().close();
  });
});
