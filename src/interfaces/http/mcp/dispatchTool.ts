import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Problem } from "../../../errors/result.js";
import { ApiError } from "../apiError.js";
import { NEXT_FIELD } from "./outputSchemas.js";
import { apiErrorFrom } from "../apiErrorFrom.js";
import type { AnyTool, ToolContext } from "./toolDefinition.js";

function errorResult(failure: ApiError): CallToolResult {
  const body = failure.toBody().error;
  const lines = [`${failure.code}: ${failure.message}`];
  for (const problem of failure.details.problems ?? []) lines.push(`- ${problem.path === "" ? "(task)" : problem.path}: ${problem.message} [${problem.code}]`);
  // No structuredContent on errors: clients check it against the output schema, which describes success.
  return {
    isError: true,
    content: [
      { type: "text", text: lines.join("\n") },
      { type: "text", text: JSON.stringify({ error: body }) },
    ],
  };
}

export function unknownToolResult(name: string): CallToolResult {
  return errorResult(new ApiError("not_found", `There is no tool "${name.slice(0, 64)}". tools/list names errand's tools.`));
}

/** zod's issues as errand problems: each with its JSON Pointer under the arguments. */
function argumentProblems(issues: readonly { path: readonly PropertyKey[]; message: string }[]): Problem[] {
  return issues.map((issue) => ({
    code: "invalid_type",
    path: `/${issue.path.map((p) => String(p).replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}`,
    message: issue.message,
  }));
}

/**
 * Checks a tool's arguments, runs its handler and turns the outcome into the MCP result: data
 * becomes structuredContent, and the text beside it is a short summary (where things stand, what
 * held) ending with the result's `next`, which moves there from the data. The text is not the same
 * JSON again: a model reads both, and the copy doubled what every call cost it. An ApiError becomes a tool error whose text gives the code, the message (which says
 * what to do next), and each problem with its JSON Pointer; anything else is logged for the
 * operator and reported as internal_error without details. The `task` argument is not checked here:
 * it goes untouched to the task validator REST and the CLI use.
 */
export async function dispatchTool(tool: AnyTool, args: unknown, ctx: ToolContext): Promise<CallToolResult> {
  const parsed = tool.input.safeParse(args);
  if (!parsed.success)
    return errorResult(
      new ApiError("invalid_type", `The arguments of ${tool.name} do not fit its input schema.`, { problems: argumentProblems(parsed.error.issues) }),
    );
  try {
    const output = await tool.handler(parsed.data, ctx);
    const images = tool.images === undefined ? [] : tool.images(output);
    const { [NEXT_FIELD]: next, ...data } = tool.structured === undefined ? output : tool.structured(output);
    const summary = tool.summarize(output);
    if (typeof next !== "string")
      return { content: [{ type: "text", text: summary }, ...images], structuredContent: { ...data, ...(next === undefined ? {} : { [NEXT_FIELD]: next }) } };
    return { content: [{ type: "text", text: `${summary}\nNext: ${next}` }, ...images], structuredContent: data };
  } catch (error) {
    const answer = apiErrorFrom(error);
    if (answer === null || answer.status >= 500) ctx.deps.logger.error(`Tool ${tool.name} failed`, error);
    return errorResult(
      answer ??
        new ApiError(
          "internal_error",
          "errand failed unexpectedly while handling this call; nothing else is known to have changed. Call errand_status, then retry once.",
        ),
    );
  }
}
