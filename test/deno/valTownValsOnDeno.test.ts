// errand's Val Town vals (deploy/valtown/http.ts and interval.ts), run unchanged under Deno the way
// Val Town runs them, against local stand-ins (Val Town itself is out of reach):
// - a host (test/fixtures/valtown/valHost.ts) imports a val file and serves its default export with
//   Deno.serve, handing it the Request only (no peer address, as on Val Town), or calls an interval
//   val's default export once with an Interval;
// - an import map (Deno's --import-map, written into the test's temp folder with absolute file URLs)
//   sends the vals' two imports elsewhere: `https://esm.town/v/std/sqlite/main.ts` to
//   test/fixtures/valtown/stdSqliteModule.ts (the std/sqlite stand-in on a file in the temp folder),
//   and `npm:errand@<package.json's version>/fetch` straight to src/interfaces/fetch/index.ts. Deno
//   takes an `npm:` specifier as an import map key like any other URL and maps it before any npm
//   resolution, so no npm package is involved (--cached-only: nothing is fetched). errand's own
//   imports then resolve from this repository's node_modules (--node-modules-dir=manual).
// The environment is what a val's owner sets (master key, owner password, public URL, Browserless
// token, program mode), with no ERRAND_DATABASE_URL: the state is in the platform's database. The
// real MCP SDK client goes through OAuth with the owner password; a read task pinned to Browserless
// runs in program mode through the real open-source Browserless server within the request; a task
// whose longest attempt does not fit ERRAND_REQUEST_LIMIT is answered pending and not started, and
// one run of the interval val runs it. ERRAND_HOME is never created; no secret appears in what the
// host prints.
// Not shown here: Val Town itself, its real std/sqlite (the val-scoped client returns
// @libsql/client's own rows, the stand-in the JSON wire's array rows; the adapter reads both, see
// test/store/libsql/valTownSqliteClient.test.ts), errand as published to npm (its `exports`, the
// built dist), and Val Town's run limits.
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { after, before, describe, test } from "node:test";
import { createClient } from "@libsql/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { browserlessUnavailable, startBrowserlessServer } from "../fixtures/browserlessServer.js";
import type { BrowserlessServer } from "../fixtures/browserlessServer.js";
import { startCountingHttpRelay } from "../fixtures/countingHttpRelay.js";
import type { CountingHttpRelay, RelayedRequest } from "../fixtures/countingHttpRelay.js";
import { startFixtureSites } from "../fixtures/fixtureSite.js";
import { answerConsent, openConsent } from "../interfaces/http/support/oauthDance.js";
import { TestOAuthProvider } from "../interfaces/http/support/sdkOAuthProvider.js";
import { freePort, runDenoOnce, startDenoServer } from "./support/denoProcess.js";
import type { DenoServer } from "./support/denoProcess.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const STD_SQLITE = "https://esm.town/v/std/sqlite/main.ts";
const ERRAND_ENTRY = `npm:errand@${VERSION}/fetch`;
const HOST = "test/fixtures/valtown/valHost.ts";
const CALLBACK = "http://127.0.0.1:47997/callback";
const OWNER_PASSWORD = "valtown-owner-password-canary-2b9e";
const BROWSERLESS_TOKEN = "errand-valtown-browserless-token-c4d8";
/** The platform's request limit here: a 10 s task fits it (worst case 19 s), a 30 s one does not (45 s) but fits the interval val's 50 s budget. */
const REQUEST_LIMIT = "30s";

/** `deno run` as the Deno entries' scripts in package.json run it, plus the import map and no module fetched. */
function denoRunArgs(importMap: string): string[] {
  return [
    "run",
    "--import-map",
    importMap,
    "--allow-net",
    "--allow-env",
    "--allow-read",
    "--allow-write",
    "--allow-ffi",
    "--allow-sys",
    "--no-check",
    "--node-modules-dir=manual",
    "--sloppy-imports",
    "--cached-only",
  ];
}

type ToolResult = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown> };
type Receipt = { status: string; provider: string } | undefined;

/** What reached Browserless since `from` (an index into the relay's list), as "METHOD /path" with "(upgrade)" for a WebSocket. */
function reached(requests: RelayedRequest[], from: number): string[] {
  return requests.slice(from).map((r) => `${r.method} ${r.path}${r.upgrade ? " (upgrade)" : ""}`);
}

const unavailable = browserlessUnavailable();
if (unavailable !== null) process.stderr.write(`notice: skipping the Val Town vals' Browserless tasks: ${unavailable}\n`);

describe("errand's Val Town vals under Deno", { timeout: 300_000 }, () => {
  const scratch = mkdtempSync(join(tmpdir(), "errand-valtown-"));
  const denoDir = join(scratch, "deno-dir");
  const database = join(scratch, "val-sqlite.db");
  const importMap = join(scratch, "import-map.json");
  const errandHome = join(scratch, "errand-home");
  const key = randomBytes(32).toString("base64");
  let sites: Awaited<ReturnType<typeof startFixtureSites>>;
  let browserless: BrowserlessServer | undefined;
  /** In front of Browserless: what reaches it, and how (a program is one POST /function; CDP would be a WebSocket upgrade). */
  let relay: CountingHttpRelay | undefined;
  let httpVal: DenoServer | undefined;
  const output = () => httpVal?.output() ?? "";
  let origin = "";
  let env: NodeJS.ProcessEnv = {};
  const provider = new TestOAuthProvider(CALLBACK);
  let client: Client | undefined;
  const submitted: string[] = [];
  let intervalOutput = "";

  /** Runs the interval val once, as Val Town does on its schedule. */
  async function runIntervalVal(): Promise<{ code: number | null; out: string; ms: number }> {
    const run = await runDenoOnce([...denoRunArgs(importMap), HOST, "interval", "deploy/valtown/interval.ts"], env);
    intervalOutput += run.out;
    return run;
  }

  async function inspect(operationId: string): Promise<Record<string, unknown>> {
    assert.ok(client !== undefined);
    const result = (await client.callTool({ name: "errand_inspect", arguments: { operationId } })) as ToolResult;
    assert.ok(result.structuredContent !== undefined, JSON.stringify(result.content).slice(0, 2000));
    return result.structuredContent;
  }

  before(async () => {
    sites = await startFixtureSites();
    if (unavailable === null) {
      browserless = await startBrowserlessServer({ token: BROWSERLESS_TOKEN, concurrent: 1, queued: 2, timeoutMs: 60_000 });
      relay = await startCountingHttpRelay(browserless.httpBase);
    }
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    writeFileSync(
      importMap,
      JSON.stringify({
        imports: {
          [STD_SQLITE]: pathToFileURL(join(ROOT, "test/fixtures/valtown/stdSqliteModule.ts")).href,
          [ERRAND_ENTRY]: pathToFileURL(join(ROOT, "src/interfaces/fetch/index.ts")).href,
        },
      }),
    );
    env = {
      // The process's own: Deno's cache, no update check, no colours.
      PATH: process.env["PATH"] ?? "",
      HOME: denoDir,
      DENO_DIR: denoDir,
      DENO_NO_UPDATE_CHECK: "1",
      NO_COLOR: "1",
      // The host's: removed from the environment before the val reads it.
      VALTOWN_STANDIN_SQLITE_PATH: database,
      VALTOWN_HOST_PORT: String(port),
      // The owner's, as the val's environment variables.
      ERRAND_HOME: errandHome,
      ERRAND_MASTER_KEY: key,
      ERRAND_OWNER_PASSWORD: OWNER_PASSWORD,
      ERRAND_PUBLIC_URL: origin,
      ERRAND_OAUTH_EXTRA_REDIRECTS: CALLBACK,
      ERRAND_REQUEST_LIMIT: REQUEST_LIMIT,
      ERRAND_ALLOW_PRIVATE: sites.site.origin.slice("http://".length),
      ...(browserless === undefined ? {} : { BROWSERLESS_TOKEN, BROWSERLESS_BASE_URL: relay?.origin, ERRAND_MODE_BROWSERLESS: "program" }),
    };
    httpVal = await startDenoServer([...denoRunArgs(importMap), HOST, "http", "deploy/valtown/http.ts"], env, "HTTP val listening on");
  });

  after(async () => {
    if (process.env["ERRAND_DEBUG_DENO"] === "1") process.stderr.write(output());
    await client?.close().catch(() => undefined);
    await httpVal?.stop();
    await relay?.close();
    await browserless?.stop();
    await sites?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  test("the HTTP val: the MCP SDK client gets through OAuth with the owner password (a wrong one grants nothing) and lists errand's tools", async () => {
    const first = new Client({ name: "valtown-e2e", version: "1.0.0" });
    await assert.rejects(first.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { authProvider: provider })), UnauthorizedError);
    const url = provider.authorizationUrl;
    assert.ok(url !== undefined && url.toString().startsWith(`${origin}/authorize`), String(url));
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

    client = new Client({ name: "valtown-e2e", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { authProvider: provider }));
    assert.equal(client.getServerVersion()?.name, "errand");
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    for (const name of ["errand_run", "errand_collect", "errand_inspect", "errand_capabilities"]) assert.ok(names.includes(name), name);
    const caps = (await client.callTool({ name: "errand_capabilities", arguments: {} })) as ToolResult;
    const limits = caps.structuredContent?.["limits"] as { request?: { limitSeconds: number | null } } | undefined;
    assert.equal(limits?.request?.limitSeconds, 30, "the request limit the owner set");
  });

  test(
    "the HTTP val: errand_run of a read task pinned to Browserless runs in program mode within the request, and the receipt PASSes",
    { skip: unavailable ?? false },
    async () => {
      assert.ok(client !== undefined, "the OAuth test ran first");
      assert.ok(relay !== undefined);
      const operationId = randomUUID();
      submitted.push(operationId);
      const mark = relay.requests().length;
      const result = (await client.callTool({
        name: "errand_run",
        arguments: {
          task: {
            schemaVersion: "errand.task.v1",
            operationId,
            provider: "browserless",
            risk: "read_only",
            target: { url: `${sites.site.origin}/` },
            steps: [{ action: "expect_text", selector: "#title", text: "Fixture Home", match: "exact" }],
            timeouts: { taskMs: 10_000 },
          },
          waitSeconds: 25,
        },
      })) as ToolResult;
      assert.ok(result.structuredContent !== undefined, JSON.stringify(result.content).slice(0, 2000));
      const receipt = result.structuredContent["receipt"] as Receipt;
      assert.equal(result.structuredContent["status"], "completed", JSON.stringify(result.structuredContent).slice(0, 2000));
      assert.equal(receipt?.status, "PASS", JSON.stringify(receipt).slice(0, 2000));
      assert.equal(receipt?.provider, "browserless");
      assert.ok(sites.site.count("/") >= 1, "the page was fetched by Browserless's browser");
      assert.deepEqual(reached(relay.requests(), mark), ["POST /function"], "one program, no CDP session");
    },
  );

  test(
    "a task that does not fit ERRAND_REQUEST_LIMIT is answered pending and not started; one run of the interval val runs it, and errand_collect gets its PASS",
    { skip: unavailable ?? false },
    async () => {
      assert.ok(client !== undefined, "the OAuth test ran first");
      assert.ok(relay !== undefined);
      const operationId = randomUUID();
      submitted.push(operationId);
      const mark = relay.requests().length;
      const result = (await client.callTool({
        name: "errand_run",
        arguments: {
          task: {
            schemaVersion: "errand.task.v1",
            operationId,
            provider: "browserless",
            risk: "read_only",
            target: { url: `${sites.site.origin}/choose` },
            steps: [{ action: "expect_text", selector: "#shown", text: "none", match: "exact" }],
            timeouts: { taskMs: 30_000 },
          },
          waitSeconds: 25,
        },
      })) as ToolResult;
      assert.ok(result.structuredContent !== undefined, JSON.stringify(result.content).slice(0, 2000));
      assert.equal(result.structuredContent["status"], "pending", JSON.stringify(result.structuredContent).slice(0, 2000));
      // The next step ends the text content over MCP (it leaves the structured content).
      const text = result.content.map((part) => part.text ?? "").join("\n");
      assert.match(text, /Queued, not started/);
      assert.match(text, /the interval val/);
      // Not started: no attempt, no visit; and nothing in the HTTP val starts it later on its own.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const before = await inspect(operationId);
      assert.deepEqual(before["attempts"] ?? [], [], JSON.stringify(before).slice(0, 2000));
      assert.equal((before["handle"] as { phase: string }).phase, "queued");
      assert.equal(sites.site.count("/choose"), 0, "no browser visited the page");
      assert.deepEqual(reached(relay.requests(), mark), [], "nothing reached Browserless");

      const run = await runIntervalVal();
      assert.equal(run.code, 0, run.out.slice(-3000));
      assert.match(run.out, /val host: the interval val returned/);
      process.stderr.write(`notice: one run of the interval val took ${run.ms} ms\n`);
      assert.ok(sites.site.count("/choose") >= 1, "the interval val's run visited the page through Browserless");
      assert.deepEqual(reached(relay.requests(), mark), ["POST /function"], "the interval val sent it as one program");

      const collected = (await client.callTool({ name: "errand_collect", arguments: { operationId, waitSeconds: 5 } })) as ToolResult;
      assert.ok(collected.structuredContent !== undefined, JSON.stringify(collected.content).slice(0, 2000));
      assert.equal(collected.structuredContent["status"], "completed", JSON.stringify(collected.structuredContent).slice(0, 2000));
      const receipt = collected.structuredContent["receipt"] as Receipt;
      assert.equal(receipt?.status, "PASS", JSON.stringify(receipt).slice(0, 2000));
      assert.equal(receipt?.provider, "browserless");
      const afterwards = await inspect(operationId);
      assert.equal((afterwards["attempts"] as unknown[]).length, 1, "one attempt, made by the interval val");
    },
  );

  test("the state is in the std/sqlite stand-in's database only (ERRAND_HOME never created); no secret in what either val's host printed", async () => {
    // A run with nothing due: the interval val opens the same database and returns.
    const run = await runIntervalVal();
    assert.equal(run.code, 0, run.out.slice(-3000));
    assert.equal(existsSync(errandHome), false, "ERRAND_HOME was never written: no key file, no errand.db");
    const reader = createClient({ url: `file:${database}` });
    try {
      const operations = await reader.execute("SELECT operation_id, phase FROM operations ORDER BY operation_id");
      assert.deepEqual(
        operations.rows.map((row) => [row["operation_id"], row["phase"]]),
        [...submitted].sort().map((id) => [id, "completed"]),
      );
      const tables = await reader.execute("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'");
      assert.ok(Number(tables.rows[0]?.["n"]) > 5, "errand's schema is in the val's database");
    } finally {
      reader.close();
    }
    for (const canary of [key, OWNER_PASSWORD, BROWSERLESS_TOKEN]) {
      assert.equal(output().toLowerCase().includes(canary.toLowerCase()), false, "the HTTP val's output holds no secret");
      assert.equal(intervalOutput.toLowerCase().includes(canary.toLowerCase()), false, "the interval val's output holds no secret");
    }
  });
});
