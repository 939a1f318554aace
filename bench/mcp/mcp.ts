// Median latency of a read-only MCP tool call (errand_status, OAuth bearer) against a bare MCP SDK
// server answering a trivial tool, and of the REST equivalent (GET /v1/status, API token) against
// a bare Hono JSON route. Both servers run in this process on 127.0.0.1, are called by the SDK
// Client (MCP) or fetch (REST) over real sockets, and are measured in interleaved chunks so that
// drift in machine speed hits both sides alike.
// Usage: npx tsx bench/mcp/mcp.ts [calls per side, default 1000] [chunk, default 20]
// ERRAND_BENCH_DUMP=1 also prints every sample.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { Hono } from "hono";
import * as z from "zod/v4";
import { createApp } from "../../src/interfaces/http/createApp.js";
import { createQueueDriver } from "../../src/interfaces/http/queueDriver.js";
import { createErrand } from "../../src/app/createErrand.js";
import { silentLogger } from "../../src/interfaces/http/httpLogger.js";
import { listenNode, nodeClientAddress } from "../../src/interfaces/http/serveNode.js";
import type { NodeListener } from "../../src/interfaces/http/serveNode.js";
import { resolveServeSettings } from "../../src/interfaces/http/serveSettings.js";

const calls = Number(process.argv[2] ?? 1000);
const chunk = Number(process.argv[3] ?? 20);
const WARMUP = 50;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

function pct(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length * q)] ?? 0;
}

function p90(values: number[]): number {
  return pct(values, 0.9);
}

async function errandServer(home: string): Promise<{ listener: NodeListener; accessToken: string; apiToken: string; close(): Promise<void> }> {
  // errand put together as every entry does; the app is built by hand so the bench needs no owner password.
  const errand = await createErrand({ env: { ERRAND_HOME: home } });
  const { service } = errand;
  const { access, hasher } = errand.accessTables();
  const listener = await listenNode({ host: "127.0.0.1", port: 0 });
  const settings = resolveServeSettings({ host: "127.0.0.1", port: listener.port });
  // A grant made directly in the store, as the consent page would: one client, one code, redeemed.
  await access.registerClient(
    {
      clientId: "bench",
      secretHash: null,
      authMethod: "none",
      clientName: "bench",
      redirectUris: ["https://chatgpt.com/connector_platform_oauth_redirect"],
      metadata: {},
    },
    10,
  );
  const accessToken = hasher.mint("access");
  const code = hasher.mint("code");
  await access.saveAuthorizationCode({
    codeHash: hasher.hash("code", code),
    clientId: "bench",
    redirectUri: "https://chatgpt.com/connector_platform_oauth_redirect",
    codeChallenge: "x".repeat(43),
    scopes: ["tasks"],
    resource: settings.mcpResource,
    expiresMs: Date.now() + 60_000,
    usedMs: null,
  });
  await access.redeemAuthorizationCode(hasher.hash("code", code), {
    familyId: "fam_bench",
    clientId: "bench",
    scopes: ["tasks"],
    resource: settings.mcpResource,
    accessHash: hasher.hash("access", accessToken),
    accessExpiresMs: Date.now() + 3_600_000,
    refreshHash: hasher.hash("refresh", hasher.mint("refresh")),
    refreshExpiresMs: Date.now() + 3_600_000,
  });
  const apiToken = hasher.mint("api");
  await access.createApiToken({ tokenId: "tok_bench", name: "bench", tokenHash: hasher.hash("api", apiToken) });
  const queue = createQueueDriver({ service, logger: silentLogger });
  const app = createApp({
    settings,
    service,
    access,
    hasher,
    ownerSecret: () => Promise.resolve(undefined),
    queue,
    providers: () => [],
    clientAddress: nodeClientAddress,
    logger: silentLogger,
    version: "bench",
    commit: "unknown",
  });
  listener.setHandler((request, env) => app.fetch(request, env));
  return {
    listener,
    accessToken,
    apiToken,
    async close() {
      await listener.close();
      await queue.close();
      await errand.close();
    },
  };
}

/** The baseline: the same SDK transport, stateless, one trivial tool with an output schema, no auth, no store. */
async function bareServer(): Promise<NodeListener> {
  const app = new Hono();
  app.post("/mcp", async (c) => {
    const server = new McpServer({ name: "bare", version: "1.0.0" });
    server.registerTool(
      "ping",
      { description: "Answers ok.", inputSchema: z.object({}), outputSchema: z.object({ ok: z.boolean() }), annotations: { readOnlyHint: true } },
      () => Promise.resolve({ content: [{ type: "text" as const, text: "ok" }], structuredContent: { ok: true } }),
    );
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    return transport.handleRequest(c.req.raw);
  });
  app.get("/status", (c) => c.json({ ok: true }));
  const listener = await listenNode({ host: "127.0.0.1", port: 0 });
  listener.setHandler((request, env) => app.fetch(request, env));
  return listener;
}

async function timeEach(n: number, call: () => Promise<unknown>, into: number[]): Promise<void> {
  for (let i = 0; i < n; i += 1) {
    const started = performance.now();
    await call();
    into.push(performance.now() - started);
  }
}

const home = mkdtempSync(join(tmpdir(), "errand-bench-mcp-"));
const errand = await errandServer(home);
const bare = await bareServer();
const errandClient = new Client({ name: "bench", version: "1.0.0" });
await errandClient.connect(
  new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${errand.listener.port}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${errand.accessToken}` } },
  }),
);
const bareClient = new Client({ name: "bench", version: "1.0.0" });
await bareClient.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${bare.port}/mcp`)));

const sides = {
  mcpErrand: () => errandClient.callTool({ name: "errand_status", arguments: {} }),
  mcpBare: () => bareClient.callTool({ name: "ping", arguments: {} }),
  restErrand: async () =>
    (await fetch(`http://127.0.0.1:${errand.listener.port}/v1/status`, { headers: { authorization: `Bearer ${errand.apiToken}` } })).json() as Promise<unknown>,
  restBare: async () => (await fetch(`http://127.0.0.1:${bare.port}/status`)).json() as Promise<unknown>,
};
const samples: Record<keyof typeof sides, number[]> = { mcpErrand: [], mcpBare: [], restErrand: [], restBare: [] };
for (const call of Object.values(sides)) await timeEach(WARMUP, call, []);
for (let done = 0; done < calls; done += chunk) {
  for (const [name, call] of Object.entries(sides) as [keyof typeof sides, () => Promise<unknown>][])
    await timeEach(Math.min(chunk, calls - done), call, samples[name]);
}
await errandClient.close();
await bareClient.close();
await errand.close();
await bare.close();
rmSync(home, { recursive: true, force: true });

const row = (label: string, a: number[], b: number[]) => ({
  measure: label,
  errandP25Ms: +pct(a, 0.25).toFixed(3),
  baselineP25Ms: +pct(b, 0.25).toFixed(3),
  errandMedianMs: +median(a).toFixed(3),
  baselineMedianMs: +median(b).toFixed(3),
  ratio: +(median(a) / median(b)).toFixed(3),
  errandP90Ms: +p90(a).toFixed(3),
  baselineP90Ms: +p90(b).toFixed(3),
});
const rows = [
  row("MCP tools/call (errand_status vs bare ping)", samples.mcpErrand, samples.mcpBare),
  row("REST GET (/v1/status vs bare JSON route)", samples.restErrand, samples.restBare),
];
console.log(JSON.stringify({ calls, chunk, rows }, null, 2));
if (process.env["ERRAND_BENCH_DUMP"] === "1") console.log(JSON.stringify(samples));
