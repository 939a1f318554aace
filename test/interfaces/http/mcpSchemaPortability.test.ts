// The tools/list schemas are portable to clients that map them onto a single-type dialect (Gemini's
// OpenAPI subset) and say what every value is: the two rules MCP Inspector's strict mode warns about
// (`mcp-inspector --cli URL --method tools/list --strict`; scripts/mcp-inspector-strict.ts runs it).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { TOOLS } from "../../../src/interfaces/http/mcp/toolList.js";
import { toolListing } from "../../../src/interfaces/http/mcp/toolListing.js";

/** Keywords that constrain a value; a schema node with none of them accepts anything. */
const CONSTRAINING = new Set([
  "type",
  "enum",
  "const",
  "anyOf",
  "oneOf",
  "allOf",
  "not",
  "properties",
  "required",
  "items",
  "additionalProperties",
  "format",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "pattern",
  "minItems",
  "maxItems",
  "$ref",
]);
const SUBSCHEMA_MAPS = ["properties", "patternProperties", "$defs", "definitions"];
const SUBSCHEMA_LISTS = ["anyOf", "oneOf", "allOf", "prefixItems"];
const SUBSCHEMAS = ["items", "additionalProperties", "not", "propertyNames", "contains"];

/** Every problem in one schema, as "path: rule". */
function portabilityProblems(node: unknown, path: string, problems: string[]): string[] {
  if (typeof node !== "object" || node === null || Array.isArray(node)) return problems;
  const schema = node as Record<string, unknown>;
  if (Array.isArray(schema["type"])) problems.push(`${path}: type is an array (${JSON.stringify(schema["type"])})`);
  if (!Object.keys(schema).some((key) => CONSTRAINING.has(key))) problems.push(`${path}: no validation keyword`);
  for (const key of SUBSCHEMA_MAPS)
    for (const [name, sub] of Object.entries((schema[key] ?? {}) as Record<string, unknown>)) portabilityProblems(sub, `${path}.${key}.${name}`, problems);
  for (const key of SUBSCHEMA_LISTS) ((schema[key] ?? []) as unknown[]).forEach((sub, i) => portabilityProblems(sub, `${path}.${key}[${i}]`, problems));
  for (const key of SUBSCHEMAS) if (schema[key] !== undefined) portabilityProblems(schema[key], `${path}.${key}`, problems);
  return problems;
}

describe("tools/list schema portability", () => {
  test("no schema in any tool uses a type array or leaves a value unconstrained", () => {
    const problems = toolListing(TOOLS).flatMap((tool) => [
      ...portabilityProblems(tool.inputSchema, `${tool.name} inputSchema`, []),
      ...portabilityProblems(tool.outputSchema, `${tool.name} outputSchema`, []),
    ]);
    assert.deepEqual(problems, []);
  });

  test("a nullable output field keeps both type names, one per anyOf branch", () => {
    const queue = toolListing(TOOLS).find((tool) => tool.name === "errand_run_queue");
    assert.deepEqual(queue?.outputSchema?.properties?.["stoppedBecause"], { anyOf: [{ type: "string" }, { type: "null" }] });
  });

  test("an upload step's file is typed as a name or a download reference", () => {
    const run = toolListing(TOOLS).find((tool) => tool.name === "errand_run");
    const task = run?.inputSchema.properties?.["task"] as { properties: { steps: { items: { properties: Record<string, { anyOf?: { type: string }[] }> } } } };
    assert.deepEqual(
      task.properties.steps.items.properties["file"]?.anyOf?.map((branch) => branch.type),
      ["string", "object"],
    );
  });

  test("the check itself finds both problems in a schema that has them", () => {
    assert.deepEqual(portabilityProblems({ type: "object", properties: { a: { type: ["string", "null"] }, b: { description: "anything" } } }, "s", []), [
      's.properties.a: type is an array (["string","null"])',
      "s.properties.b: no validation keyword",
    ]);
  });
});
