// errand_capabilities and GET /v1/capabilities: one answer, built once, and each of its facts is the
// one the code that decides it enforces: the validator (every action, field and bound), the wait
// table (MCP tools and REST routes), the body and page-text caps, the tools and routes.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { TOOLS } from "../../../src/interfaces/http/mcp/toolList.js";
import { PAGE_TEXT_LIMITS } from "../../../src/interfaces/http/presentResult.js";
import { REST_ENDPOINTS } from "../../../src/interfaces/http/rest/restEndpoints.js";
import { WAIT_SECONDS } from "../../../src/interfaces/http/waitBounds.js";
import { FRAME_ACTIONS, STEP_FIELDS } from "../../../src/task/readStep.js";
import { validateTask } from "../../../src/task/validateTask.js";
import { CALLBACK, OWNER_PASSWORD, startAppServer } from "./support/appHarness.js";
import type { AppHarness } from "./support/appHarness.js";
import { obtainGrant } from "./support/oauthDance.js";

interface Field {
  name: string;
  maxChars?: number;
  pattern?: string;
  oneOf?: string[];
  min?: number;
  max?: number;
  httpUrl?: true;
}
interface Capabilities {
  tools: { name: string; readOnly: boolean; destructive: boolean; openWorld: boolean }[];
  rest: { method: string; path: string }[];
  taskActions: { action: string; changesSite: boolean; fields: Field[] }[];
  limits: { waitSeconds: unknown; bodyBytes: unknown; pageText: unknown };
}

/** A valid value for each field a step can take, so one field at a time can be pushed past its bound. */
const VALID: Record<string, unknown> = {
  url: "https://example.com/",
  selector: "#a",
  frame: "#f",
  value: "v",
  text: "t",
  secret: "site_pw",
  name: "n",
  attribute: "title",
  key: "Enter",
  timeoutMs: 1000,
};

function taskWith(step: Record<string, unknown>): Record<string, unknown> {
  return {
    schemaVersion: "errand.task.v1",
    operationId: randomUUID(),
    target: { url: "https://example.com/" },
    risk: "reversible_write",
    approved: true,
    secretApproval: true,
    steps: [step],
  };
}

function problemPaths(task: Record<string, unknown>): string[] {
  const result = validateTask(task);
  return result.ok ? [] : result.errors.map((e) => e.path);
}

describe("capabilities over MCP and REST", { timeout: 60_000 }, () => {
  let server: AppHarness & { origin: string };
  let client: Client;
  let apiToken = "";

  before(async () => {
    server = await startAppServer();
    const grant = await obtainGrant(fetch, server.origin, OWNER_PASSWORD, CALLBACK);
    client = new Client({ name: "capabilities-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), { requestInit: { headers: { authorization: `Bearer ${grant.accessToken}` } } }),
    );
    apiToken = await server.apiToken();
  });
  after(async () => {
    await client?.close().catch(() => undefined);
    await server?.close();
  });

  const rest = (path: string, init: RequestInit = {}) =>
    fetch(`${server.origin}${path}`, { ...init, headers: { authorization: `Bearer ${apiToken}`, "content-type": "application/json", ...init.headers } });

  test("GET /v1/capabilities answers what errand_capabilities answers; tools and routes are the served ones", async () => {
    const viaMcp = (await client.callTool({ name: "errand_capabilities", arguments: {} })).structuredContent as Capabilities;
    const response = await rest("/v1/capabilities");
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), viaMcp);
    assert.deepEqual(
      viaMcp.tools.map((t) => t.name),
      TOOLS.map((t) => t.name),
    );
    for (const tool of TOOLS)
      assert.deepEqual(
        viaMcp.tools.find((t) => t.name === tool.name),
        { name: tool.name, readOnly: tool.annotations.readOnlyHint, destructive: tool.annotations.destructiveHint, openWorld: tool.annotations.openWorldHint },
      );
    assert.deepEqual(
      viaMcp.rest.map((r) => `${r.method} ${r.path}`),
      REST_ENDPOINTS.map((r) => `${r.method} ${r.path}`),
    );
    assert.ok(viaMcp.rest.some((r) => r.path === "/v1/capabilities"));
    assert.deepEqual(viaMcp.limits.bodyBytes, server.settings.limits);
    assert.deepEqual(viaMcp.limits.pageText, PAGE_TEXT_LIMITS);
    assert.equal((await fetch(`${server.origin}/v1/capabilities`)).status, 401, "an API token is needed");
  });

  test("every action the validator accepts is listed with its fields, and each listed bound is the one the validator refuses past", async () => {
    const { taskActions } = (await (await rest("/v1/capabilities")).json()) as Capabilities;
    assert.deepEqual(
      taskActions.map((a) => a.action),
      Object.keys(STEP_FIELDS),
    );
    let bounded = 0;
    for (const { action, fields } of taskActions) {
      assert.deepEqual(
        fields.map((f) => f.name),
        [...((STEP_FIELDS as Record<string, readonly string[]>)[action] ?? []), ...(FRAME_ACTIONS.has(action as never) ? ["frame"] : []), "timeoutMs"],
        action,
      );
      // A base step with a valid value in every field (fill_secret's envVar is another spelling of secret).
      const names = fields.map((f) => f.name).filter((n) => n !== "envVar");
      if (!names.every((n) => n in VALID || n === "match")) continue;
      const base: Record<string, unknown> = { action };
      for (const field of fields) if (field.name !== "envVar") base[field.name] = field.name === "match" ? field.oneOf?.[0] : VALID[field.name];
      assert.deepEqual(problemPaths(taskWith(base)), [], `${action} with valid values`);
      for (const field of fields) {
        if (field.name === "envVar") continue;
        const past: unknown[] = [];
        if (field.maxChars !== undefined)
          past.push(field.httpUrl === true ? `https://example.com/${"a".repeat(field.maxChars)}` : "a".repeat(field.maxChars + 1));
        if (field.oneOf !== undefined) past.push("not-in-the-set");
        if (field.pattern !== undefined) past.push("1 not a name");
        if (field.max !== undefined) past.push(field.max + 1);
        if (field.min !== undefined) past.push(field.min - 1);
        for (const value of past) {
          bounded += 1;
          assert.ok(
            problemPaths(taskWith({ ...base, [field.name]: value })).includes(`/steps/0/${field.name}`),
            `${action}.${field.name} = ${String(value).slice(0, 40)} is refused at its path`,
          );
        }
        if (field.maxChars !== undefined && field.httpUrl !== true) {
          assert.deepEqual(
            problemPaths(taskWith({ ...base, [field.name]: field.name === "secret" ? base[field.name] : "a".repeat(field.maxChars) })),
            [],
            `${action}.${field.name} at its bound is accepted`,
          );
        }
      }
    }
    assert.ok(bounded >= 30, `${bounded} bounds checked`);
  });

  test("wait bounds: the answer is the table; each REST route refuses one second past its bound and the OpenAPI document states it", async () => {
    const capabilities = (await (await rest("/v1/capabilities")).json()) as Capabilities;
    assert.deepEqual(capabilities.limits.waitSeconds, WAIT_SECONDS);
    const openApi = (await (await rest("/v1/openapi.json")).json()) as {
      paths: Record<
        string,
        { post: { requestBody: { content: { "application/json": { schema: { properties: { waitSeconds: { maximum: number; default: number } } } } } } } }
      >;
    };
    const routes = { collectOperation: `/v1/operations/${randomUUID()}/collect`, runQueue: "/v1/runner" } as const;
    const documented = { collectOperation: "/v1/operations/{operationId}/collect", runQueue: "/v1/runner" } as const;
    for (const route of Object.keys(WAIT_SECONDS.rest) as (keyof typeof WAIT_SECONDS.rest)[]) {
      const bound = WAIT_SECONDS.rest[route];
      const refused = await rest(routes[route], { method: "POST", body: JSON.stringify({ waitSeconds: bound.max + 1 }) });
      assert.equal(refused.status, 400, route);
      assert.match(((await refused.json()) as { error: { message: string } }).error.message, new RegExp(`from 0 to ${bound.max}\\.`), route);
      const schema = openApi.paths[documented[route]]?.post.requestBody.content["application/json"].schema.properties.waitSeconds;
      assert.deepEqual([schema?.maximum, schema?.default], [bound.max, bound.default], route);
    }
    // The bound itself passes the wait check (an unknown operation then answers 404).
    assert.equal(
      (await rest(routes.collectOperation, { method: "POST", body: JSON.stringify({ waitSeconds: WAIT_SECONDS.rest.collectOperation.max }) })).status,
      404,
    );
  });
});
