import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod/v4";
import { NEXT_FIELD } from "./outputSchemas.js";
import { taskArgument } from "./taskArgument.js";
import { taskInputSchema } from "./taskInputSchema.js";
import type { AnyTool } from "./toolDefinition.js";

const SAFE_INTEGER_BOUNDS = new Set([Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER]);

/**
 * Drops what zod writes but says nothing to a model: "any string key" on records, "any value" on
 * their entries, integer bounds that are only JavaScript's safe range, and, on outputs,
 * additionalProperties:false (errand adds fields to results over time; clients must not refuse them).
 */
function compact(node: unknown, io: "input" | "output"): void {
  if (Array.isArray(node)) {
    for (const item of node) compact(item, io);
    return;
  }
  if (typeof node !== "object" || node === null) return;
  const schema = node as Record<string, unknown>;
  const names = schema["propertyNames"] as Record<string, unknown> | undefined;
  if (names !== undefined && Object.keys(names).length === 1 && names["type"] === "string") delete schema["propertyNames"];
  const extra = schema["additionalProperties"];
  if ((typeof extra === "object" && extra !== null && Object.keys(extra).length === 0) || (io === "output" && extra === false))
    delete schema["additionalProperties"];
  for (const bound of ["minimum", "maximum"]) if (SAFE_INTEGER_BOUNDS.has(schema[bound] as number)) delete schema[bound];
  // "at least one character" on a required string tells a model nothing; the validator still refuses "".
  if (schema["minLength"] === 1) delete schema["minLength"];
  // format "uuid" says it; zod's 130-character regex repeats it.
  if (schema["format"] === "uuid") delete schema["pattern"];
  for (const value of Object.values(schema)) compact(value, io);
}

const SHALLOW_KEYS = ["type", "enum", "const"];

/**
 * An output schema as the model needs it: the top-level fields, their types and enums. Nested
 * shapes and field descriptions cost three quarters of tools/list and told the model nothing it
 * acts on (each result's `next` says what to do; docs/CHATGPT_SETUP.md describes the fields).
 * Looser than the zod schema, so every result still fits it. `next` is not in it: it ends the text.
 */
function shallow(json: Record<string, unknown>): Record<string, unknown> {
  const properties = (json["properties"] ?? {}) as Record<string, Record<string, unknown>>;
  const kept: Record<string, Record<string, unknown>> = {};
  for (const [name, property] of Object.entries(properties)) {
    if (name === NEXT_FIELD) continue;
    const variants = (property["anyOf"] as Record<string, unknown>[] | undefined) ?? [property];
    const entry: Record<string, unknown> = {};
    for (const key of SHALLOW_KEYS) if (property[key] !== undefined) entry[key] = property[key];
    // An enum names every value, so its type says nothing more.
    if (entry["enum"] !== undefined) delete entry["type"];
    // A nullable field is written by zod as anyOf [T, null]: keep the type names, one per branch
    // (a type array is legal JSON Schema, but single-type dialects such as Gemini's refuse it).
    if (entry["type"] === undefined && entry["enum"] === undefined) {
      const types = variants.map((v) => v["type"]).filter((t): t is string => typeof t === "string");
      if (types.length === 1) entry["type"] = types[0];
      else if (types.length > 1) entry["anyOf"] = types.map((type) => ({ type }));
    }
    kept[name] = entry;
  }
  return { type: "object", properties: kept };
}

function jsonSchemaOf(schema: z.ZodObject, io: "input" | "output", required: readonly string[]): Tool["inputSchema"] {
  const json = z.toJSONSchema(schema, {
    io,
    override: (ctx) => {
      if (ctx.zodSchema === taskArgument) {
        for (const key of Object.keys(ctx.jsonSchema)) delete (ctx.jsonSchema as Record<string, unknown>)[key];
        Object.assign(ctx.jsonSchema, taskInputSchema());
      }
    },
  }) as Record<string, unknown>;
  compact(json, io);
  // The dialect line repeats on every schema of every tool; MCP's default (2020-12) is the same.
  delete json["$schema"];
  if (required.length > 0) json["required"] = [...new Set([...((json["required"] as string[] | undefined) ?? []), ...required])];
  return json as Tool["inputSchema"];
}

/**
 * The exact tools/list entries errand serves, built once from the tool objects. errand writes this
 * JSON itself (through the SDK's low-level server) so that its size is known and tested: at most
 * 10 kB for every tool together (test/interfaces/http/mcpSurface.test.ts).
 */
export function toolListing(tools: readonly AnyTool[]): Tool[] {
  return tools.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchemaOf(tool.input, "input", tool.requiredArguments ?? []),
    outputSchema: (tool.listOutputFields === false ? { type: "object" } : shallow(jsonSchemaOf(tool.output, "output", []))) as NonNullable<
      Tool["outputSchema"]
    >,
    annotations: { ...tool.annotations },
  }));
}
