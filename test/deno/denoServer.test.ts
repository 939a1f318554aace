// errand served by Deno (the `deno:serve` script in package.json, run as written there): the real
// MCP SDK client goes through OAuth (registration, consent with the owner password, tokens) and
// lists and calls tools over HTTP; one task runs in program mode through the real open-source
// Browserless server within the request that asked; the interval entry (`deno:runner`) passes over
// the same libSQL database. The master key and owner password come from the environment and never
// appear in what the server prints; no key file is written.
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { browserlessUnavailable, startBrowserlessServer } from "../fixtures/browserlessServer.js";
import type { BrowserlessServer } from "../fixtures/browserlessServer.js";
import { startCountingListener } from "../fixtures/countingListeners.js";
import type { CountingListener } from "../fixtures/countingListeners.js";
import { startFixtureSites } from "../fixtures/fixtureSite.js";
import { startKernelEmulator } from "../fixtures/providerEmulators/kernelEmulator.js";
import { findChromium } from "../../src/providers/local/findChromium.js";
import type { ProviderEmulator } from "../fixtures/providerEmulators/providerEmulator.js";
import { answerConsent, openConsent } from "../interfaces/http/support/oauthDance.js";
import { TestOAuthProvider } from "../interfaces/http/support/sdkOAuthProvider.js";
import { freePort, runDenoOnce, startDenoServer } from "./support/denoProcess.js";
import type { DenoServer } from "./support/denoProcess.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CALLBACK = "http://127.0.0.1:47998/callback";
const OWNER_PASSWORD = "deno-owner-password-canary-7f3a";
const BROWSERLESS_TOKEN = "errand-deno-browserless-token-51c0";

/** The arguments of a package.json script that runs `deno …`, so the test runs exactly what the README tells people to run. */
function denoScriptArgs(name: string): string[] {
  const scripts = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
  const script = scripts[name];
  assert.ok(script !== undefined && script.startsWith("deno "), `package.json has a "${name}" script that runs deno`);
  return script.split(/\s+/).slice(1);
}

type ToolResult = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown> };

/** errand_run of the read task every test here runs (the fixture site's home page must say "Fixture Home"), pinned to `provider`. */
async function runFixtureTask(client: Client, siteOrigin: string, provider: string, options: { waitSeconds: number; taskMs?: number }): Promise<ToolResult> {
  return (await client.callTool({
    name: "errand_run",
    arguments: {
      task: {
        schemaVersion: "errand.task.v1",
        operationId: randomUUID(),
        provider,
        risk: "read_only",
        target: { url: `${siteOrigin}/` },
        steps: [{ action: "expect_text", selector: "#title", text: "Fixture Home", match: "exact" }],
        ...(options.taskMs === undefined ? {} : { timeouts: { taskMs: options.taskMs } }),
      },
      waitSeconds: options.waitSeconds,
    },
  })) as ToolResult;
}

const unavailable = browserlessUnavailable();
/** The Kernel emulator runs each program on a real Chromium page. */
const noChromium = findChromium(process.env) === null ? "no Chromium (apt-get install -y chromium)" : null;
if (unavailable !== null) process.stderr.write(`notice: skipping the Deno program-mode task: ${unavailable}\n`);

describe("errand on Deno", { timeout: 300_000 }, () => {
  const scratch = mkdtempSync(join(tmpdir(), "errand-deno-server-"));
  const denoDir = join(scratch, "deno-dir");
  const key = randomBytes(32).toString("base64");
  let sites: Awaited<ReturnType<typeof startFixtureSites>>;
  let browserless: BrowserlessServer | undefined;
  // Kernel's API as documented (browsers, playwright/execute), running the program on a real Chromium page.
  let kernel: ProviderEmulator;
  // Where a Steel session would be created: a provider in CDP mode, which this host cannot drive.
  let steel: CountingListener;
  let server: DenoServer | undefined;
  const output = () => server?.output() ?? "";
  let origin = "";
  let env: NodeJS.ProcessEnv = {};
  const provider = new TestOAuthProvider(CALLBACK);
  let client: Client | undefined;

  before(async () => {
    sites = await startFixtureSites();
    steel = await startCountingListener("127.0.0.1");
    kernel = await startKernelEmulator({ reachLoopback: true });
    if (unavailable === null) browserless = await startBrowserlessServer({ token: BROWSERLESS_TOKEN, concurrent: 1, queued: 2, timeoutMs: 30_000 });
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    env = {
      PATH: process.env["PATH"] ?? "",
      HOME: denoDir,
      DENO_DIR: denoDir,
      DENO_NO_UPDATE_CHECK: "1",
      NO_COLOR: "1",
      ERRAND_HOME: join(scratch, "home"),
      ERRAND_MASTER_KEY: key,
      ERRAND_OWNER_PASSWORD: OWNER_PASSWORD,
      ERRAND_DATABASE_URL: `file:${join(scratch, "errand.db")}`,
      ERRAND_PORT: String(port),
      ERRAND_OAUTH_EXTRA_REDIRECTS: CALLBACK,
      ERRAND_REQUEST_LIMIT: "2m",
      ERRAND_ALLOW_PRIVATE: sites.site.origin.slice("http://".length),
      ...kernel.env,
      ERRAND_MODE_KERNEL: "program",
      STEEL_API_KEY: "steel-key-canary-9d2e",
      STEEL_BASE_URL: `http://127.0.0.1:${steel.port}`,
      ...(browserless === undefined
        ? {}
        : { BROWSERLESS_TOKEN, BROWSERLESS_BASE_URL: browserless.wsBase, ERRAND_MODE_BROWSERLESS: "program", ERRAND_PROVIDER_ORDER: "browserless" }),
    };
    server = await startDenoServer(denoScriptArgs("deno:serve"), env, "listening on");
  });

  after(async () => {
    if (process.env["ERRAND_DEBUG_DENO"] === "1") process.stderr.write(output());
    await client?.close().catch(() => undefined);
    await server?.stop();
    await browserless?.stop();
    await steel?.close();
    await kernel?.close();
    await sites?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  test("the MCP SDK client gets through OAuth (401, discovery, registration, consent with the owner password, tokens) and lists errand's tools", async () => {
    assert.match(output(), new RegExp(`MCP URL: ${origin}/mcp`));
    const first = new Client({ name: "deno-e2e", version: "1.0.0" });
    await assert.rejects(first.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { authProvider: provider })), UnauthorizedError);
    const url = provider.authorizationUrl;
    assert.ok(url !== undefined && url.toString().startsWith(`${origin}/authorize`));
    const form = await openConsent(fetch, url.toString());
    assert.equal(form.status, 200);
    const wrong = await answerConsent(fetch, origin, form, { decision: "approve", password: "not-the-owner-password" });
    assert.notEqual(wrong.status, 303, "a wrong owner password grants nothing");
    const again = await openConsent(fetch, url.toString());
    const answer = await answerConsent(fetch, origin, again, { decision: "approve", password: OWNER_PASSWORD });
    assert.equal(answer.status, 303);
    const code = new URL(answer.headers.get("location") ?? "").searchParams.get("code");
    assert.ok(code !== null);
    await new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { authProvider: provider }).finishAuth(code);
    assert.ok(provider.saved?.access_token.startsWith("errand_at_"));

    client = new Client({ name: "deno-e2e", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { authProvider: provider }));
    assert.equal(client.getServerVersion()?.name, "errand");
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    for (const name of ["errand_run", "errand_collect", "errand_capabilities", "errand_status"]) assert.ok(names.includes(name), name);
    const caps = (await client.callTool({ name: "errand_capabilities", arguments: {} })) as ToolResult;
    const limits = caps.structuredContent?.["limits"] as { request?: { limitSeconds: number | null } } | undefined;
    assert.equal(limits?.request?.limitSeconds, 120, "the request limit this host was given");
  });

  test("the owner console: the login page, the owner password, then the dashboard with its sites; REST asks for a token", async () => {
    const page = await fetch(`${origin}/owner`);
    assert.equal(page.status, 200);
    const csrf = /name="csrf" value="([^"]*)"/.exec(await page.text())?.[1] ?? "";
    const loginCookie = (page.headers.getSetCookie()[0] ?? "").split(";")[0] ?? "";
    const login = await fetch(`${origin}/owner/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin, cookie: loginCookie },
      body: new URLSearchParams({ csrf, password: OWNER_PASSWORD, next: "/owner" }).toString(),
      redirect: "manual",
    });
    assert.equal(login.status, 303);
    const session =
      login.headers
        .getSetCookie()
        .find((c) => !c.includes("Max-Age=0"))
        ?.split(";")[0] ?? "";
    const dashboard = await fetch(`${origin}/owner`, { headers: { cookie: session } });
    assert.equal(dashboard.status, 200);
    assert.match(await dashboard.text(), /Sites/);
    // REST is there, behind API tokens.
    const rest = await fetch(`${origin}/v1/status`);
    assert.equal(rest.status, 401);
    assert.match(rest.headers.get("www-authenticate") ?? "", /^Bearer/);
  });

  test(
    "errand_run: a read task runs in program mode through the real Browserless server within the request, and the receipt PASSes",
    { skip: unavailable ?? false },
    async () => {
      assert.ok(client !== undefined, "the OAuth test ran first");
      const result = await runFixtureTask(client, sites.site.origin, "browserless", { waitSeconds: 40, taskMs: 20_000 });
      assert.ok(result.structuredContent !== undefined, JSON.stringify(result.content).slice(0, 2000));
      const receipt = result.structuredContent["receipt"] as { status: string; provider: string; checks?: unknown[] } | undefined;
      assert.equal(result.structuredContent?.["status"], "completed", JSON.stringify(result.structuredContent).slice(0, 2000));
      assert.equal(receipt?.status, "PASS", JSON.stringify(receipt).slice(0, 2000));
      assert.equal(receipt?.provider, "browserless");
      assert.ok(sites.site.count("/") >= 1, "the page was fetched by Browserless's browser");
    },
  );

  test(
    "errand_run: a read task runs in program mode on Kernel (its emulator: one playwright/execute call in a browser it creates and deletes) within the request, and PASSes",
    { skip: noChromium ?? false },
    async () => {
      assert.ok(client !== undefined, "the OAuth test ran first");
      const executes = () => kernel.core.count("POST", /^\/browsers\/[^/]+\/playwright\/execute$/);
      const before = { executes: executes(), creates: kernel.createRequests(), releases: kernel.releaseRequests() };
      const result = await runFixtureTask(client, sites.site.origin, "kernel", { waitSeconds: 40, taskMs: 20_000 });
      const receipt = result.structuredContent?.["receipt"] as { status: string; provider: string } | undefined;
      assert.equal(receipt?.status, "PASS", JSON.stringify(result.structuredContent).slice(0, 2000));
      assert.equal(receipt?.provider, "kernel");
      assert.equal(executes() - before.executes, 1, "the whole task went as one execute call");
      assert.equal(kernel.createRequests() - before.creates, 1);
      assert.equal(kernel.releaseRequests() - before.releases, 1, "the browser it created was deleted");
    },
  );

  test("a provider in CDP mode, and the local browser, are refused on Deno as the host's configuration (BLOCKED), before any session is created: nothing reaches it", async () => {
    assert.ok(client !== undefined, "the OAuth test ran first");
    const result = await runFixtureTask(client, sites.site.origin, "steel", { waitSeconds: 40, taskMs: 20_000 });
    const receipt = result.structuredContent?.["receipt"] as { status: string; error?: { code: string; message: string } } | undefined;
    assert.equal(receipt?.status, "BLOCKED", JSON.stringify(result.structuredContent).slice(0, 2000));
    assert.equal(receipt?.error?.code, "configuration_error");
    assert.match(receipt?.error?.message ?? "", /program mode/);
    assert.equal(steel.tcpConnections(), 0, "no Steel session was created");

    // No local browser on such a host, whatever Chromium the machine has: capabilities say so, and a task pinned to it is refused.
    const caps = (await client.callTool({ name: "errand_capabilities", arguments: {} })) as ToolResult;
    const local = (caps.structuredContent?.["providers"] as { name: string; usable: boolean; note: string }[] | undefined)?.find((p) => p.name === "local");
    assert.equal(local?.usable, false);
    assert.match(local?.note ?? "", /cloud browsers only/);
    const pinned = await runFixtureTask(client, sites.site.origin, "local", { waitSeconds: 20 });
    const refused = pinned.structuredContent?.["receipt"] as { status: string; error?: { code: string; message: string } } | undefined;
    assert.equal(refused?.status, "BLOCKED", JSON.stringify(pinned.structuredContent).slice(0, 2000));
    assert.equal(refused?.error?.code, "configuration_error");
    assert.match(refused?.error?.message ?? "", /cloud browsers only/);
  });

  test("the interval entry (deno:runner) passes over the same database and reports in counts; no key file anywhere, no secret in the server's output", async () => {
    const run = await runDenoOnce(denoScriptArgs("deno:runner"), env);
    assert.equal(run.code, 0, run.out.slice(-2000));
    const report = JSON.parse(run.out.trim().split("\n").at(-1) ?? "{}") as { attempts: number; stoppedBecause: string };
    assert.equal(report.stoppedBecause, "drained");
    assert.equal(report.attempts, 0, "nothing was left queued for it");
    assert.equal(existsSync(join(scratch, "home")), false, "ERRAND_HOME was never written: no key file, no errand.db");
    assert.ok(readdirSync(scratch).includes("errand.db"));
    for (const canary of [
      key,
      OWNER_PASSWORD,
      BROWSERLESS_TOKEN,
      "steel-key-canary-9d2e",
      ...Object.entries(kernel.env)
        .filter(([name]) => name.endsWith("API_KEY"))
        .map(([, value]) => value),
    ]) {
      assert.equal(output().toLowerCase().includes(canary.toLowerCase()), false, "the server's output holds no secret");
      assert.equal(run.out.toLowerCase().includes(canary.toLowerCase()), false, "the runner's output holds no secret");
    }
  });
});
