import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Context } from "hono";
import type { AppDeps, AppEnv } from "../httpDeps.js";
import { readBoundedBody } from "../readBody.js";
import { dispatchTool, unknownToolResult } from "./dispatchTool.js";
import { SERVER_INSTRUCTIONS } from "./instructions.js";
import { toolListing } from "./toolListing.js";
import { TOOLS } from "./toolList.js";

function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), { status, headers: { "content-type": "application/json" } });
}

/** Calls `done` once the response body has been sent or abandoned (the per-request server is then closed). */
function whenSent(response: Response, done: () => void): Response {
  if (response.body === null) {
    done();
    return response;
  }
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  response.body.pipeTo(writable).then(done, done);
  return new Response(readable, { status: response.status, statusText: response.statusText, headers: response.headers });
}

let listing: Tool[] | undefined;

/**
 * Builds the MCP server for one request: errand's tools, bound to the caller who was authenticated.
 * The SDK's low-level server is used so errand writes tools/list itself (its size is tested) and
 * hands each tool's raw arguments to errand's own checks; no `listChanged` is advertised, since
 * the list never changes while errand runs.
 */
export function buildMcpServer(deps: AppDeps, principal: AppEnv["Variables"]["principal"]): Server {
  const server = new Server({ name: "errand", title: "errand", version: deps.version }, { instructions: SERVER_INSTRUCTIONS, capabilities: { tools: {} } });
  listing ??= toolListing(TOOLS);
  const tools = listing;
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, (request): Promise<CallToolResult> => {
    const tool = TOOLS.find((t) => t.name === request.params.name);
    if (tool === undefined) return Promise.resolve(unknownToolResult(request.params.name));
    return dispatchTool(tool, request.params.arguments ?? {}, { deps, principal });
  });
  return server;
}

/**
 * POST /mcp: stateless Streamable HTTP. Every request gets a fresh server and transport (no
 * session to hijack or leak between callers, any restart is harmless), answered as an SSE stream
 * with keep-alives so a long errand_run survives proxies that drop quiet connections. The web-standard
 * transport is used directly (the Node wrapper only adapts IncomingMessage to it), so this handler
 * runs on any fetch runtime. The body is read here under errand's own limit.
 */
export function mcpEndpoint(deps: AppDeps): (c: Context<AppEnv>) => Promise<Response> {
  return async (c) => {
    const body = await readBoundedBody(c.req.raw, deps.settings.limits.mcpBytes);
    if (!body.ok) return jsonRpcError(413, -32000, `Request body over ${deps.settings.limits.mcpBytes} bytes.`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.text);
    } catch {
      return jsonRpcError(400, -32700, "Parse error: the body is not JSON.");
    }
    const server = buildMcpServer(deps, c.get("principal"));
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, keepAliveMs: 10_000 });
    await server.connect(transport);
    const response = await transport.handleRequest(c.req.raw, { parsedBody: parsed });
    return whenSent(response, () => void server.close().catch(() => undefined));
  };
}

export function mcpMethodNotAllowed(): Response {
  return new Response(
    JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed: this server is stateless; POST JSON-RPC to /mcp." }, id: null }),
    {
      status: 405,
      headers: { "content-type": "application/json", allow: "POST" },
    },
  );
}
