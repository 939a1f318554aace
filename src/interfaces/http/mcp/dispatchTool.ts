import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ApiError } from "../apiError.js";
import type { AnyTool, ToolContext } from "./toolDefinition.js";

/**
 * Runs a tool's handler and turns its outcome into the MCP result: data becomes structuredContent
 * plus a one-line text summary; an ApiError becomes a tool error whose text gives the code, the
 * message (which says what to do next), and each problem with its JSON Pointer; anything else is
 * logged for the operator and reported as internal_error without details.
 */
export async function dispatchTool(tool: AnyTool, args: unknown, ctx: ToolContext): Promise<CallToolResult> {
  try {
    const output = await tool.handler(args as never, ctx);
    return { content: [{ type: "text", text: tool.summarize(output) }], structuredContent: output };
  } catch (error) {
    const failure =
      error instanceof ApiError
        ? error
        : new ApiError("internal_error", "errand failed unexpectedly while handling this call; nothing else is known to have changed. Call errand_status, then retry once.");
    if (!(error instanceof ApiError)) ctx.deps.logger.error(`Tool ${tool.name} failed`, error);
    const body = failure.toBody().error;
    const lines = [`${failure.code}: ${failure.message}`];
    for (const problem of failure.details.problems ?? []) lines.push(`- ${problem.path === "" ? "(task)" : problem.path}: ${problem.message} [${problem.code}]`);
    // No structuredContent on errors: clients check it against the output schema, which describes success.
    return { isError: true, content: [{ type: "text", text: lines.join("\n") }, { type: "text", text: JSON.stringify({ error: body }) }] };
  }
}
