// The tool surface as the model receives it, through the real MCP SDK client over a real loopback
// socket: tools/list is small and typed, annotations tell the truth, every text result carries
// the structured JSON, the task reaches the same validator as REST and the CLI, and /mcp checks
// Origin before anything else.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { MCP_WAIT_SECONDS, waitTooLongMessage } from "../../../src/interfaces/http/mcp/toolWaits.js";
import type { WaitingTool } from "../../../src/interfaces/http/mcp/toolWaits.js";
import { validateTask } from "../../../src/task/validateTask.js";
import { readTask } from "../../operations/support/tasks.js";
import { CALLBACK, OWNER_PASSWORD, startAppServer } from "./support/appHarness.js";
import type { AppHarness } from "./support/appHarness.js";
import { obtainGrant } from "./support/oauthDance.js";

type ToolResult = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown> };

const ALLOWED_ORIGIN = "https://inspector.example";

/** POSTs one JSON-RPC request and returns the JSON text of its answer (the SSE data line or the JSON body). */
async function rawRpc(origin: string, token: string, body: string): Promise<string> {
  const response = await fetch(`${origin}/mcp`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body,
  });
  const text = await response.text();
  const data = text.split("\n").find((line) => line.startsWith("data: "));
  return data === undefined ? text : data.slice("data: ".length);
}

describe("MCP tool surface", { timeout: 60_000 }, () => {
  let server: AppHarness & { origin: string };
  let client: Client;
  let accessToken = "";

  before(async () => {
    server = await startAppServer({ settings: { mcpAllowedOrigins: [ALLOWED_ORIGIN] } });
    accessToken = (await obtainGrant(fetch, server.origin, OWNER_PASSWORD, CALLBACK)).accessToken;
    client = new Client({ name: "surface-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), { requestInit: { headers: { authorization: `Bearer ${accessToken}` } } }),
    );
  });
  after(async () => {
    await client?.close().catch(() => undefined);
    await server?.close();
  });

  // The whole list may grow to 10,000 bytes. 1,200 of them are kept for task actions, which raise
  // this bound by what each adds (check and uncheck: 52 bytes; lists and wait_for state/url: 280;
  // click's then: 40; upload: 94);
  // the rest of the surface stays within 8,800 (8,716 with an output schema on every tool, before
  // check and uncheck), plus 84 for single-type spellings (nullable fields as anyOf, upload's file
  // as a string or an object) that MCP Inspector's strict mode asks for, plus 650 for
  // errand_provider_smoke (provider activation: 688 measured, so the sum is the 10,000 ceiling).
  // A selector step's frame, typed as a selector or a list of them (90 bytes), fits in the 46 that
  // left once four descriptions said the same in fewer words (name's dropped: the signatures say it).
  // errand_look's frames (its output field and four words: 46 bytes) fit in the 80 an output enum's
  // repeated "type" gave back (9,965 measured). errand_run saying its wait is shorter under a request
  // limit (and pointing to next rather than promising it keeps running) adds 21 (9,986 measured).
  test("tools/list is at most 8,800 bytes on the wire plus what task actions add, every tool has an output schema, and no listChanged is advertised", async () => {
    const raw = await rawRpc(server.origin, accessToken, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }));
    const bytes = Buffer.byteLength(raw);
    assert.ok(bytes <= 8800 + 52 + 280 + 40 + 94 + 84 + 650, `tools/list is ${bytes} bytes`);
    for (const tool of (await client.listTools()).tools) assert.equal(tool.outputSchema?.type, "object", tool.name);
    console.log(`tools/list: ${bytes} bytes`);
    assert.deepEqual(client.getServerCapabilities()?.tools, {}, "no listChanged: the list never changes while errand runs");
  });

  test("the task argument is typed inline: actions, their fields, risk levels", async () => {
    const { tools } = await client.listTools();
    const run = tools.find((t) => t.name === "errand_run");
    const task = (run?.inputSchema.properties?.["task"] ?? {}) as {
      required?: string[];
      properties?: Record<string, { items?: { properties?: Record<string, { enum?: string[]; description?: string }> }; enum?: string[] }>;
    };
    assert.deepEqual(task.required, ["schemaVersion", "operationId", "target", "risk", "steps"]);
    assert.deepEqual(task.properties?.["risk"]?.enum, ["read_only", "reversible_write", "consequential"]);
    const action = task.properties?.["steps"]?.items?.properties?.["action"];
    assert.ok(action?.enum?.includes("fill_secret") && action.enum.includes("expect_url"));
    assert.match(action?.description ?? "", /fill\(selector,value\)/);
    assert.deepEqual(run?.inputSchema.required, ["task"]);
  });

  test("annotations tell the truth: whatever can run a write is destructive, cancel is not, reads are read-only", async () => {
    const { tools } = await client.listTools();
    const hints = Object.fromEntries(tools.map((t) => [t.name, [t.annotations?.readOnlyHint, t.annotations?.destructiveHint, t.annotations?.openWorldHint]]));
    assert.deepEqual(hints["errand_run"], [false, true, true]);
    assert.deepEqual(hints["errand_run_queue"], [false, true, true]);
    assert.deepEqual(hints["errand_cancel"], [false, false, false]);
    assert.deepEqual(hints["errand_look"], [true, false, true], "look opens pages (open world) but never writes");
    for (const name of ["errand_collect", "errand_inspect", "errand_status", "errand_task_schema", "errand_capabilities"])
      assert.deepEqual(hints[name], [true, false, false], name);
  });

  test("every successful result's text is a short summary with the next step; the data is only in structuredContent", async () => {
    const id = randomUUID();
    for (const [name, args] of [
      ["errand_status", {}],
      ["errand_task_schema", {}],
      ["errand_capabilities", {}],
      ["errand_run", { task: readTask(id), waitSeconds: 20 }],
      ["errand_collect", { operationId: id }],
      ["errand_inspect", { operationId: id }],
    ] as const) {
      const result = (await client.callTool({ name, arguments: args })) as ToolResult;
      assert.equal(result.isError, undefined, name);
      const texts = result.content.filter((c) => c.type === "text").map((c) => c.text ?? "");
      assert.equal(texts.length, 1, `${name}: one text part`);
      const text = texts[0] ?? "";
      assert.ok(Buffer.byteLength(text) <= 700, `${name}: ${Buffer.byteLength(text)} bytes of text`);
      assert.ok(!text.includes(JSON.stringify(result.structuredContent).slice(0, 40)), `${name}: the text does not repeat the JSON`);
      assert.equal(result.structuredContent?.["next"], undefined, `${name}: next is in the text, not the data`);
      if (name !== "errand_status" && name !== "errand_task_schema" && name !== "errand_capabilities")
        assert.match(text, /\nNext: \S/, `${name}: the text ends with the result's next step`);
    }
    const collected = (await client.callTool({ name: "errand_collect", arguments: { operationId: id } })) as ToolResult;
    assert.match(collected.content[0]?.text ?? "", new RegExp(`^Operation ${id}: completed \\(receipt PASS[;)]`));
  });

  test("a top-level __proto__ key gets the same answer over MCP, REST and the validator: unknown_field at /__proto__", async () => {
    const task = JSON.parse(JSON.stringify(readTask()).replace(/^\{/, '{"__proto__":{"risk":"read_only"},')) as Record<string, unknown>;
    assert.ok(Object.hasOwn(task, "__proto__"));
    const direct = validateTask(task);
    assert.equal(direct.ok, false);
    assert.ok(!direct.ok && direct.errors.some((e) => e.code === "unknown_field" && e.path === "/__proto__"));

    const viaMcp = (await client.callTool({ name: "errand_run", arguments: { task, waitSeconds: 0 } })) as ToolResult;
    assert.equal(viaMcp.isError, true);
    assert.match(viaMcp.content[0]?.text ?? "", /\/__proto__: .*\[unknown_field\]/);

    const apiToken = await server.apiToken();
    const viaRest = await fetch(`${server.origin}/v1/operations`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiToken}`, "content-type": "application/json" },
      body: JSON.stringify(task),
    });
    assert.equal(viaRest.status, 400);
    const body = (await viaRest.json()) as { error: { problems: { code: string; path: string }[] } };
    assert.ok(body.error.problems.some((p) => p.code === "unknown_field" && p.path === "/__proto__"));
  });

  test("__proto__ and constructor keys in a JSON-RPC body, a tool name or tool arguments pollute nothing, crash nothing and create nothing; nested ones in a task are refused at their path", async () => {
    const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort();
    const operationsBefore = (await server.ops.service.listOperations({ limit: 500 })).length;
    const poison = '"__proto__":{"polluted":"yes","risk":"read_only"},"constructor":{"prototype":{"polluted":"yes"}}';
    const rpc = async (body: string) =>
      JSON.parse(await rawRpc(server.origin, accessToken, body)) as { result?: ToolResult & { tools?: unknown[] }; error?: { code: number } };

    const listed = await rpc(`{"jsonrpc":"2.0","id":1,"method":"tools/list",${poison},"params":{${poison}}}`);
    assert.ok(listed.result !== undefined || listed.error !== undefined, "a JSON-RPC answer, not a crash");
    for (const name of ["__proto__", "constructor", "toString", "hasOwnProperty"]) {
      const answer = await rpc(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name, arguments: {} } }));
      assert.equal(answer.result?.isError, true, name);
      assert.match(answer.result?.content[0]?.text ?? "", /^not_found: There is no tool/, name);
    }
    // The SDK refuses arguments that carry __proto__ themselves as not a record (a JSON-RPC error): refused, never run.
    const status = await rpc(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"errand_status","arguments":{${poison}}}}`);
    assert.ok(status.result?.isError === true || status.error !== undefined, JSON.stringify(status));
    const collect = await rpc(
      `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"errand_collect","arguments":{"operationId":"${randomUUID()}","__proto__":{"waitSeconds":999}}}}`,
    );
    assert.ok(collect.result?.isError === true || collect.error !== undefined, JSON.stringify(collect));

    // Inside a task, at every depth: refused as unknown fields at their own paths, nothing queued.
    const task = JSON.stringify({ ...readTask(), operationId: randomUUID() });
    const nested = task
      .replace('"target":{', `"target":{"__proto__":{"url":"http://169.254.169.254/"},`)
      .replace('"steps":[{', `"steps":[{"__proto__":{"action":"click"},`)
      .replace(/^\{/, '{"constructor":{"prototype":{"risk":"read_only"}},');
    const run = await rpc(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"errand_run","arguments":{"task":${nested},"waitSeconds":0}}}`);
    const text = run.result?.content[0]?.text ?? "";
    assert.equal(run.result?.isError, true, text);
    for (const path of ["/target/__proto__", "/steps/0/__proto__", "/constructor"]) assert.match(text, new RegExp(`- ${path}: .*\\[unknown_field\\]`), path);

    assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), prototypeBefore, "Object.prototype is untouched");
    assert.equal(({} as Record<string, unknown>)["polluted"], undefined);
    assert.equal((await server.ops.service.listOperations({ limit: 500 })).length, operationsBefore, "nothing was queued");
    assert.ok((await client.listTools()).tools.length > 0, "the server still answers");
  });

  test("arguments that do not fit a tool's input are refused with their path", async () => {
    const result = (await client.callTool({ name: "errand_collect", arguments: { operationId: randomUUID(), waitSeconds: 999 } })) as ToolResult;
    assert.equal(result.isError, true);
    assert.match(result.content[0]?.text ?? "", /^invalid_type: .*\n- \/waitSeconds: /);
  });

  test("every MCP wait ends before a ChatGPT call does; tools/list, errand_capabilities and the refusal all state the bound the tool enforces", async () => {
    const listed = new Map(
      (await client.listTools()).tools.map((t) => [
        t.name,
        t.inputSchema.properties?.["waitSeconds"] as { maximum?: number; default?: number; description?: string } | undefined,
      ]),
    );
    const capabilities = (await client.callTool({ name: "errand_capabilities", arguments: {} })) as ToolResult;
    const reported = (capabilities.structuredContent?.["limits"] as { waitSeconds: { mcp: Record<string, { default: number; max: number }> } }).waitSeconds.mcp;
    assert.deepEqual(Object.keys(reported).sort(), Object.keys(MCP_WAIT_SECONDS).sort());
    // The server names its version and the commit it was built from (the harness passes "unknown").
    assert.deepEqual(capabilities.structuredContent?.["server"], { name: "errand", version: "test", commit: "unknown" });
    for (const [tool, bound] of Object.entries(MCP_WAIT_SECONDS) as [WaitingTool, { default: number; max: number }][]) {
      // A ChatGPT tool call gets roughly 60 s; the wait must leave room for the answer.
      assert.ok(bound.max <= 45, `${tool} waits up to ${bound.max} s`);
      const schema = listed.get(tool);
      assert.equal(schema?.maximum, bound.max, tool);
      assert.equal(schema?.default, bound.default, tool);
      assert.ok(schema?.description?.includes(`max ${bound.max}`), tool);
      assert.deepEqual(reported[tool], { default: bound.default, max: bound.max }, tool);
      const args =
        tool === "errand_run"
          ? { task: readTask(randomUUID()), waitSeconds: bound.max + 1 }
          : tool === "errand_collect"
            ? { operationId: randomUUID(), waitSeconds: bound.max + 1 }
            : { waitSeconds: bound.max + 1 };
      const refused = (await client.callTool({ name: tool, arguments: args })) as ToolResult;
      assert.equal(refused.isError, true, tool);
      assert.ok((refused.content[0]?.text ?? "").includes(`- /waitSeconds: ${waitTooLongMessage(tool)}`), refused.content[0]?.text);
    }
    assert.equal(
      (
        (await client.callTool({
          name: "errand_collect",
          arguments: { operationId: randomUUID(), waitSeconds: MCP_WAIT_SECONDS.errand_collect.max },
        })) as ToolResult
      ).content[0]?.text?.startsWith("invalid_type"),
      false,
      "the bound itself is accepted",
    );
  });

  test("/mcp refuses a foreign Origin with 403 before authentication; errand's own and listed origins pass to the token check", async () => {
    const post = (origin: string | undefined, token?: string) =>
      fetch(`${server.origin}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(origin === undefined ? {} : { origin }),
          ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
    const foreign = await post("http://evil.example", accessToken);
    assert.equal(foreign.status, 403);
    assert.equal(((await foreign.json()) as { error: { code: string } }).error.code, "forbidden_origin");
    assert.equal((await post("null", accessToken)).status, 403);
    assert.equal((await post(server.origin)).status, 401);
    assert.equal((await post(ALLOWED_ORIGIN)).status, 401);
    assert.equal((await post(ALLOWED_ORIGIN, accessToken)).status, 200);
    assert.equal((await post(undefined, accessToken)).status, 200);
  });
});
