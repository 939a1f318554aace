import * as z from "zod/v4";
import { taskGuide } from "../../../../task/taskGuide.js";
import type { AnyTool } from "../toolDefinition.js";
import { defineTool } from "../toolDefinition.js";
import { providerCapabilitySchema } from "../outputSchemas.js";
import { WAIT_SECONDS } from "../../waitBounds.js";
import { capabilitiesReport } from "../../capabilitiesReport.js";

export const taskSchemaTool = defineTool({
  name: "errand_task_schema",
  title: "Task schema and examples",
  description: "Use this for the whole task schema: every field, bound and refusal rule, and examples that validate.",
  input: z.object({}),
  output: z.object({
    schemaVersion: z.string().describe("The task schema version to put in schemaVersion."),
    summary: z.string().describe("What a task is."),
    fields: z.array(z.object({ name: z.string(), required: z.boolean(), description: z.string() })).describe("Top-level fields."),
    actions: z
      .array(z.object({ action: z.string(), fields: z.array(z.string()), changesSite: z.boolean(), description: z.string() }))
      .describe("Step actions, their fields, and whether they can change the site (writes)."),
    rules: z.array(z.string()).describe("Rules that get tasks refused."),
    limits: z.record(z.string(), z.unknown()).describe("Size, count and time bounds."),
    examples: z
      .array(z.object({ title: z.string(), task: z.record(z.string(), z.unknown()) }))
      .describe("Complete tasks that validate; give each new task a fresh operationId."),
  }),
  listOutputFields: false,
  annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false, idempotentHint: true },
  handler: () => Promise.resolve(taskGuide() as never),
  summarize: (output) => `Task schema ${output.schemaVersion}: ${output.actions.length} actions, ${output.examples.length} examples.`,
});

/** Capabilities describe the server itself, including its tool list, which it receives lazily. */
export function createCapabilitiesTool(listTools: () => readonly AnyTool[]): AnyTool {
  return defineTool({
    name: "errand_capabilities",
    title: "errand capabilities",
    description: "Use this to see the server's limits, tools, REST endpoints and usable providers.",
    input: z.object({}),
    output: z.object({
      server: z.object({ name: z.string(), version: z.string(), commit: z.string() }).describe("This server: its version and the commit it was built from."),
      protocol: z.object({ latest: z.string(), supported: z.array(z.string()) }).describe("MCP protocol versions this server speaks."),
      taskSchemaVersion: z.string().describe("Task schema accepted."),
      receiptVersion: z.string().describe("Receipt format returned."),
      tools: z
        .array(z.object({ name: z.string(), readOnly: z.boolean(), destructive: z.boolean(), openWorld: z.boolean() }))
        .describe("MCP tools and their hints."),
      rest: z.array(z.object({ method: z.string(), path: z.string(), summary: z.string() })).describe("REST endpoints (bearer API token)."),
      oauthScopes: z.array(z.string()).describe("OAuth scopes."),
      taskActions: z
        .array(z.object({ action: z.string(), changesSite: z.boolean(), fields: z.array(z.record(z.string(), z.unknown())) }))
        .describe("Every step action, whether it can change the site, and its fields with their bounds (maxChars, pattern, oneOf, min/max)."),
      limits: z
        .record(z.string(), z.unknown())
        .describe(
          "Task limits, wait bounds (s) per MCP tool and REST route, body limits (bytes), page text caps (characters), the request limit (request.limitSeconds) a run keeps within.",
        ),
      providers: z.array(providerCapabilitySchema).describe("Browser providers and whether tasks can run on them here."),
    }),
    listOutputFields: false,
    annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false, idempotentHint: true },
    handler: (_args, { deps }) => Promise.resolve(capabilitiesReport(deps, listTools())),
    summarize: (output) =>
      `errand ${output.server.version}: ${output.tools.length} tools, ${output.taskActions.length} task actions, MCP ${output.protocol.latest}; waits at most ${Object.entries(
        WAIT_SECONDS.mcp,
      )
        .map(([tool, wait]) => `${wait.max} s (${tool})`)
        .join(", ")}${requestLimitClause(output.limits["request"])}; ${
        output.providers
          .filter((p) => p.usable)
          .map((p) => p.name)
          .join(", ") || "no"
      } provider(s) usable.`,
  });
}

/** ", and never past the request limit of N s" when the capabilities answer names one. */
function requestLimitClause(request: unknown): string {
  const seconds = typeof request === "object" && request !== null ? (request as { limitSeconds?: unknown }).limitSeconds : undefined;
  return typeof seconds === "number" ? `, and never past the platform's request limit of ${seconds} s (limits.request)` : "";
}
