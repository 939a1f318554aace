// The owner console's live login handoff end to end, in headless Chromium at phone size: the owner
// logs in to the console, opens a site's login page, sees errand's own browser (local Chromium under
// the site's network scope) as images, taps and types into the site's login form through it, taps
// Done; a site task then reads the logged-in page with no secret. From the attacker's side: no
// owner session, no CSRF token, a foreign Origin, an expired handoff are refused; the site's login
// page reaches for another loopback origin and that listener counts nothing; the session cookie
// values never appear in a console answer, a log line or the database file. Loopback only.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { chromium } from "playwright-core";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { resolveRuntimeConfig } from "../../../src/config/runtimeConfig.js";
import { buildRoutedExecutor } from "../../../src/interfaces/cli/buildRoutedExecutor.js";
import type { RoutedExecutor } from "../../../src/interfaces/cli/buildRoutedExecutor.js";
import { openSites } from "../../../src/interfaces/cli/openSites.js";
import type { OpenedSites } from "../../../src/interfaces/cli/openSites.js";
import { LoginHandoffs } from "../../../src/interfaces/http/owner/loginHandoffs.js";
import { loadOrCreateMasterKey } from "../../../src/keys/loadKey.js";
import { findChromium } from "../../../src/providers/local/findChromium.js";
import { LOGIN_USER, startLoginSite } from "../../fixtures/loginSite.js";
import type { LoginSite } from "../../fixtures/loginSite.js";
import { carriesCanary } from "../../secrets/support/secretSites.js";
import { runErrand } from "../../support/errandProcess.js";
import { OWNER_PASSWORD, startAppServer } from "./support/appHarness.js";
import type { AppHarness } from "./support/appHarness.js";

const PASSWORD = "Library-Pw-Handoff-4242";
const COOKIE_CANARY = "Pref-Cookie-Handoff-Canary-9191";
const STORAGE_CANARY = "Local-Storage-Handoff-Canary-8181";
const TTL_MS = 60_000;
const executablePath = findChromium(process.env);

describe("live login handoff in the owner console", { timeout: 240_000, skip: executablePath === null ? "no Chromium installed" : false }, () => {
  const home = mkdtempSync(join(tmpdir(), "errand-handoff-"));
  let fixture: LoginSite;
  let routed: RoutedExecutor;
  let sites: OpenedSites;
  let handoffs: LoginHandoffs;
  let server: AppHarness & { origin: string };
  let browser: Browser;
  let skewMs = 0;
  /** Connections the other origin had accepted before errand's browser opened (the test's own look at the page may preconnect). */
  let evilBaseline = 0;
  const served: string[] = [];

  before(async () => {
    fixture = await startLoginSite(PASSWORD, { cookie: COOKIE_CANARY, storage: STORAGE_CANARY }, { loginPageReachesOut: true });
    loadOrCreateMasterKey(home);
    // The other loopback origin is an operator allowance too, so only the handoff's own guards (the
    // site's origins, as for a site task) stand between the login page and it: without them it is reached.
    const env = { ERRAND_HOME: home, ERRAND_ALLOW_PRIVATE: [fixture.site.origin, fixture.evil.origin].map((origin) => origin.replace("http://", "")).join(","), ERRAND_PUBLIC_URL: "https://errand.example" };
    const config = resolveRuntimeConfig(env);
    routed = buildRoutedExecutor({ env, allowPrivate: [], config });
    sites = openSites(config, env);
    await sites.registry.define({ name: "library", origins: [fixture.site.origin], loginUrl: `${fixture.site.origin}/login`, loggedInSelector: "#sign-out" });
    handoffs = new LoginHandoffs((name, budgetMs) => routed.openLogin(name, budgetMs), TTL_MS, () => Date.now() + skewMs);
    server = await startAppServer({
      home,
      execute: routed.execute,
      extraDeps: { loginHandoffs: handoffs, sites: async () => (await sites.registry.list()).map((site) => ({ name: site.name, origins: site.origins, loggedIn: site.loggedIn, grants: [] })) },
    });
    browser = await chromium.launch({ executablePath: executablePath ?? "", headless: true, args: ["--no-sandbox"] });
  });
  after(async () => {
    await browser?.close();
    await handoffs?.closeAll();
    await server?.close();
    await routed?.shutdown();
    await sites?.close();
    await fixture?.close();
    rmSync(home, { recursive: true, force: true });
  });

  async function ownerPage(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    page.on("response", (response) => {
      if (response.url().startsWith(server.origin) && !/image\//.test(response.headers()["content-type"] ?? "")) void response.text().then((text) => served.push(text), () => undefined);
    });
    await page.goto(`${server.origin}/owner`);
    await page.fill("input[type=password]", OWNER_PASSWORD);
    await Promise.all([page.waitForURL(`${server.origin}/owner`), page.click("button:text('Log in')")]);
    return { context, page };
  }

  /** Where a field of the site's login page sits in a 390x700 viewport (errand's browser lays it out the same). */
  async function fieldCentre(selector: string): Promise<{ x: number; y: number }> {
    const context = await browser.newContext({ viewport: { width: 390, height: 700 } });
    // The test's own look at the page: the page's reach for the other origin is stopped here, uncounted.
    await context.route(`${fixture.evil.origin}/**`, (route) => route.abort());
    const probe = await context.newPage();
    await probe.goto(`${fixture.site.origin}/login`);
    const box = await probe.locator(selector).boundingBox();
    await context.close();
    assert.ok(box !== null);
    return { x: box.x + Math.min(20, box.width / 2), y: box.y + box.height / 2 };
  }

  async function tapAt(page: Page, point: { x: number; y: number }): Promise<void> {
    const screen = page.locator("#screen");
    const box = await screen.boundingBox();
    assert.ok(box !== null);
    const scale = box.width / 390;
    await Promise.all([page.waitForResponse((r) => r.url().endsWith("/login/tap") && r.ok()), screen.click({ position: { x: point.x * scale, y: point.y * scale } })]);
  }

  async function typeText(page: Page, text: string): Promise<void> {
    await page.fill("#text", text);
    assert.equal(await page.getAttribute("#text", "autocomplete"), "off");
    await Promise.all([page.waitForResponse((r) => r.url().endsWith("/login/type") && r.ok()), page.click("#send")]);
  }

  test("the owner logs in to the site by hand at phone size, taps Done, and a site task reads the logged-in page with no secret", async () => {
    const user = await fieldCentre("#user");
    const password = await fieldCentre("#password");
    assert.equal(fixture.evil.hits.length, 0);
    evilBaseline = fixture.evil.connections();
    const { context, page } = await ownerPage();
    await Promise.all([page.waitForURL(`${server.origin}/owner/sites/library/login`), page.click("#sites a:text('Log in')")]);
    await page.waitForFunction(() => {
      const screen = document.getElementById("screen") as HTMLImageElement | null;
      return screen !== null && screen.src.startsWith("blob:") && screen.naturalWidth > 0;
    });
    assert.equal(await page.evaluate(() => (document.getElementById("screen") as HTMLImageElement).naturalWidth), 390, "a frame of errand's browser arrived");
    assert.equal(handoffs.size, 1);

    await tapAt(page, user);
    await typeText(page, LOGIN_USER);
    await tapAt(page, password);
    await typeText(page, PASSWORD);
    await Promise.all([page.waitForResponse((r) => r.url().endsWith("/login/key") && r.ok()), page.click("button[data-key=Enter]")]);
    let saved = false;
    for (let tries = 0; tries < 3 && !saved; tries += 1) {
      await Promise.all([page.waitForResponse((r) => r.url().endsWith("/login/done")), page.click("#done")]);
      saved = /session of library is saved/.test((await page.textContent("#status")) ?? "");
    }
    assert.ok(saved, (await page.textContent("#status")) ?? "");
    assert.equal(handoffs.size, 0, "Done closed the login browser");
    await context.close();
    assert.equal((await sites.registry.show("library"))?.loggedIn, true);

    const operationId = randomUUID();
    const submitted = await server.ops.service.submit({
      schemaVersion: "errand.task.v1",
      operationId,
      provider: "local",
      site: "library",
      target: { url: `${fixture.site.origin}/account` },
      risk: "read_only",
      steps: [{ action: "expect_text", selector: "#loans", text: "books on loan" }],
    });
    assert.ok(submitted.ok, JSON.stringify(submitted));
    await server.ops.service.runQueue();
    const collected = await server.ops.service.collect(operationId, { wait: true, timeoutMs: 60_000, pollIntervalMs: 200 });
    assert.ok(collected.ok);
    assert.equal(collected.receipt?.status, "PASS", JSON.stringify(collected.receipt?.error));
    assert.ok(fixture.accountViews() >= 2, "the handoff's login and the task both reached the account page");
  });

  test("the site's login page reaches for another loopback origin during the handoff: nothing arrives there", () => {
    assert.equal(fixture.evil.hits.length, 0, JSON.stringify(fixture.evil.hits.map((h) => h.path)));
    assert.equal(fixture.evil.connections(), evilBaseline);
  });

  test("refused: no owner session, no CSRF token, another Origin, an expired handoff", async () => {
    const noSession = await fetch(`${server.origin}/owner/sites/library/login`, { redirect: "manual" });
    assert.equal(noSession.status, 401);
    assert.match(await noSession.text(), /Owner password/);
    const startNoSession = await fetch(`${server.origin}/owner/sites/library/login/start`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", origin: server.origin }, body: "csrf=x" });
    assert.equal(startNoSession.status, 401);

    const { context, page } = await ownerPage();
    await page.goto(`${server.origin}/owner/sites/library/login`);
    await page.waitForFunction(() => (document.getElementById("screen") as HTMLImageElement | null)?.src.startsWith("blob:") === true);
    const csrf = (await page.getAttribute("#handoff", "data-csrf")) ?? "";
    const cookie = (await context.cookies(`${server.origin}/owner/sites/library/login`)).map((c) => `${c.name}=${c.value}`).join("; ");
    const call = (action: string, body: string, origin = server.origin) => fetch(`${server.origin}/owner/sites/library/login/${action}`, { method: "POST", headers: { cookie, origin, "content-type": "application/x-www-form-urlencoded" }, body });
    assert.equal((await call("tap", "x=1&y=1")).status, 403, "no CSRF token");
    assert.equal((await call("done", "csrf=wrong")).status, 403, "a wrong CSRF token");
    assert.equal((await call("start", `csrf=${csrf}`, "http://evil.example")).status, 403, "another Origin");
    assert.equal((await call("frame", `csrf=${csrf}`)).headers.get("content-type"), "image/jpeg", "the owner's own call works");
    assert.equal(handoffs.size, 1);

    skewMs = TTL_MS + 1;
    try {
      const expired = await call("frame", `csrf=${csrf}`);
      assert.equal(expired.status, 410);
      assert.match(((await expired.json()) as { message: string }).message, /ERRAND_LOGIN_TTL/);
      assert.equal((await call("done", `csrf=${csrf}`)).status, 410);
      await page.waitForFunction(() => /closed/.test(document.getElementById("status")?.textContent ?? ""));
    } finally {
      skewMs = 0;
    }
    assert.equal(handoffs.size, 0, "the expired browser was released");
    await context.close();
  });

  test("errand site login NAME prints the console's login page of the site, or says no public URL is configured", async () => {
    const base = { ERRAND_HOME: home };
    const printed = await runErrand(["site", "login", "library"], { env: { ...base, ERRAND_PUBLIC_URL: "https://errand.example/" } });
    assert.equal(printed.code, 0, printed.stderr);
    assert.equal(printed.stdout.trim(), "https://errand.example/owner/sites/library/login");
    const unset = await runErrand(["site", "login", "library", "--json"], { env: base });
    assert.notEqual(unset.code, 0);
    const envelope = JSON.parse(unset.stdout) as { error: { code: string; message: string } };
    assert.equal(envelope.error.code, "configuration_error");
    assert.match(envelope.error.message, /ERRAND_PUBLIC_URL/);
    assert.match(envelope.error.message, /\/owner\/sites\/library\/login/);
    const unknown = await runErrand(["site", "login", "nosuch"], { env: { ...base, ERRAND_PUBLIC_URL: "https://errand.example" } });
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.stderr + unknown.stdout, /site_unknown|No site named nosuch/);
  });

  test("canary: the site's session values never appear in a console answer, a log line or the database file", () => {
    const values = fixture.issuedValues();
    assert.ok(values.length >= 3);
    const logs = JSON.stringify(server.logs);
    const files = readdirSync(home)
      .filter((name) => name.startsWith("errand.db"))
      .map((name) => readFileSync(join(home, name)).toString("latin1"));
    for (const value of values) {
      for (const text of [...served, logs, ...files]) assert.ok(!carriesCanary(text, value), `${value.slice(0, 12)}… leaked`);
    }
    assert.ok(served.some((text) => text.includes("Log in to library")), "the console's pages were searched");
  });
});
