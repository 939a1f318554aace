import type * as z from "zod/v4";
import type { AppDeps, Principal } from "../httpDeps.js";

/** Hints ChatGPT shows or acts on; set deliberately on every tool (the server enforces its own rules anyway). */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  openWorldHint: boolean;
  idempotentHint: boolean;
}

export interface ToolContext {
  deps: AppDeps;
  principal: Principal;
}

/**
 * A tool is a plain object: what the model reads (name, title, description, the described input
 * schema), what it gets back (outputSchema; the handler's data becomes structuredContent and
 * `summarize` the short text), and the handler. Handlers return data or throw; they never catch
 * and never build protocol objects: dispatchTool does.
 */
export interface ToolDefinition<I extends z.ZodObject, O extends z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: I;
  /** Arguments the listing marks required although zod accepts them absent (the raw `task`, checked by validateTask). */
  requiredArguments?: readonly string[];
  output: O;
  /**
   * False for reference tools (schema, capabilities, status), whose answer the model reads whole and
   * never branches on: their tools/list output schema says only that the answer is an object, and
   * the bytes their fields would cost go to the task schema. Every other tool lists its fields.
   */
  listOutputFields?: boolean;
  annotations: ToolAnnotations;
  handler(args: z.output<I>, ctx: ToolContext): Promise<z.input<O>>;
  summarize(output: z.input<O>): string;
  /** Images the result carries (a look's screenshot), sent as MCP image content after the text. */
  images?(output: z.input<O>): { type: "image"; data: string; mimeType: string }[];
  /** The structured content when it differs from the output (the images' bytes left out). */
  structured?(output: z.input<O>): Record<string, unknown>;
}

export type AnyTool = ToolDefinition<z.ZodObject, z.ZodObject>;

/** Checks a tool's types where it is written, then erases them so tools of every shape fit one list. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(tool: ToolDefinition<I, O>): AnyTool {
  return tool;
}
