// errand_provider_smoke and POST /v1/providers/NAME/smoke over real HTTP: the operator's smoke task
// (never the caller's) runs through errand serve's own wiring (serveProviderSmoke, the routed
// executor) on the kernel emulator, each session a real Chromium, against a loopback fixture site.
import { requestDigest } from "../../../src/task/requestDigest.js";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { resolveRuntimeConfig } from "../../../src/config/runtimeConfig.js";
import { buildRoutedExecutor } from "../../../src/app/buildRoutedExecutor.js";
import type { RoutedExecutor } from "../../../src/app/buildRoutedExecutor.js";
import { serveProviderSmoke } from "../../../src/interfaces/cli/serveProviderSmoke.js";
import type { AppDeps } from "../../../src/interfaces/http/httpDeps.js";
import { startFixtureSites } from "../../fixtures/fixtureSite.js";
import { startKernelEmulator } from "../../fixtures/providerEmulators/kernelEmulator.js";
import type { ProviderEmulator } from "../../fixtures/providerEmulators/providerEmulator.js";
import type { Sites } from "../../providers/providerContract.js";
import { CALLBACK, OWNER_PASSWORD, startAppServer } from "./support/appHarness.js";
import type { AppHarness } from "./support/appHarness.js";
import { obtainGrant } from "./support/oauthDance.js";

type ToolResult = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown> };

describe("provider activation over MCP and REST", { timeout: 240_000 }, () => {
  const scratch = mkdtempSync(join(tmpdir(), "errand-provider-smoke-http-"));
  const taskFile = join(scratch, "smoke.json");
  let sites: Sites;
  let kernel: ProviderEmulator;
  let server: AppHarness & { origin: string };
  let routed: RoutedExecutor;
  let client: Client;
  let smoke: AppDeps["smokeProvider"];

  const writeSmoke = (text: string) =>
    writeFileSync(
      taskFile,
      JSON.stringify({
        schemaVersion: "errand.task.v1",
        operationId: randomUUID(),
        risk: "read_only",
        target: { url: `${sites.site.origin}/` },
        timeouts: { taskMs: 20_000 },
        steps: [{ action: "expect_text", text, selector: "#title", match: "exact", timeoutMs: 1_000 }],
      }),
    );
  const state = async () => (await routed.store.listProviderStates()).find((p) => p.provider === "kernel");
  const rest = async (name: string, token: string) =>
    fetch(`${server.origin}/v1/providers/${name}/smoke`, { method: "POST", headers: { authorization: `Bearer ${token}` } });

  before(async () => {
    sites = await startFixtureSites();
    kernel = await startKernelEmulator();
    server = await startAppServer({ extraDeps: { smokeProvider: (name) => (smoke as NonNullable<typeof smoke>)(name) } });
    const env = { PATH: process.env["PATH"] ?? "", ERRAND_HOME: server.ops.home, ...kernel.env };
    routed = buildRoutedExecutor({ env, allowPrivate: [sites.site.origin.slice("http://".length)], config: resolveRuntimeConfig(env) });
    smoke = serveProviderSmoke({
      env,
      digest: (task) => requestDigest(server.ops.key, task),
      executor: () => Promise.resolve({ execute: routed.execute, providerStore: routed.store, shutdown: () => routed.shutdown() }),
      taskFile,
    });
    const { accessToken } = await obtainGrant(fetch, server.origin, OWNER_PASSWORD, CALLBACK);
    client = new Client({ name: "smoke-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), { requestInit: { headers: { authorization: `Bearer ${accessToken}` } } }),
    );
  });
  after(async () => {
    await client?.close().catch(() => undefined);
    await server?.close();
    await routed?.shutdown();
    await kernel?.close();
    await sites?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  test("over MCP: a failing smoke leaves kernel UNVERIFIED, a PASS promotes it; an unknown or unconfigured name reaches no site", async () => {
    writeSmoke("Not on the page");
    const failed = (await client.callTool({ name: "errand_provider_smoke", arguments: { provider: "kernel" } })) as ToolResult;
    assert.equal(failed.isError, undefined, failed.content[0]?.text);
    assert.deepEqual(failed.structuredContent?.["provider"], { name: "kernel", state: "UNVERIFIED", verified: false });
    assert.equal(failed.structuredContent?.["status"], "FAIL");
    assert.equal((await state())?.verifiedMs, null);

    writeSmoke("Fixture Home");
    const passed = (await client.callTool({ name: "errand_provider_smoke", arguments: { provider: "kernel" } })) as ToolResult;
    assert.deepEqual(passed.structuredContent?.["provider"], { name: "kernel", state: "OPERATIONAL", verified: true }, passed.content[0]?.text);
    assert.equal(typeof (await state())?.verifiedMs, "number");

    const hits = sites.site.hits.length;
    const unknown = (await client.callTool({ name: "errand_provider_smoke", arguments: { provider: "local" } })) as ToolResult;
    assert.equal(unknown.isError, true);
    assert.match(unknown.content[0]?.text ?? "", /provider/);
    const unconfigured = (await client.callTool({ name: "errand_provider_smoke", arguments: { provider: "browserless" } })) as ToolResult;
    assert.equal(unconfigured.isError, true);
    assert.match(unconfigured.content[0]?.text ?? "", /provider_unconfigured/);
    assert.equal(sites.site.hits.length, hits, "a refused smoke reaches no site");
  });

  test("over REST: only an operator token smokes; an own-scope token is refused before anything runs; an unknown name names the field", async () => {
    const operator = await server.apiToken("operator", "all");
    const own = await server.apiToken("own", "own");
    writeSmoke("Not on the page");
    const hits = sites.site.hits.length;
    const refused = await rest("kernel", own);
    assert.equal(refused.status, 401);
    assert.equal(sites.site.hits.length, hits, "a refused caller's smoke reaches no site");

    const unknown = await rest("nope", operator);
    assert.equal(unknown.status, 400);
    const body = (await unknown.json()) as { error: { code: string; problems?: { path: string }[] } };
    assert.equal(body.error.code, "invalid_enum");
    assert.equal(body.error.problems?.[0]?.path, "/provider");
    assert.equal(sites.site.hits.length, hits);

    const demoted = await rest("kernel", operator);
    assert.equal(demoted.status, 200);
    assert.deepEqual(((await demoted.json()) as { provider: unknown }).provider, { name: "kernel", state: "UNVERIFIED", verified: false });
    writeSmoke("Fixture Home");
    const promoted = await rest("kernel", operator);
    assert.deepEqual(((await promoted.json()) as { provider: unknown }).provider, { name: "kernel", state: "OPERATIONAL", verified: true });
    assert.equal(typeof (await state())?.verifiedMs, "number");
    const unconfigured = await rest("steel", operator);
    assert.equal(((await unconfigured.json()) as { error: { code: string } }).error.code, "provider_unconfigured");
  });
});
