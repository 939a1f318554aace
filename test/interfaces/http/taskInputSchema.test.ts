// The typed task errand hands out (errand_run's task argument in tools/list, the OpenAPI document's
// Task) names exactly the fields the validator accepts, at the top level and on a step, frame
// included, so neither interface describes a field the validator refuses or hides one it takes.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { taskInputSchema } from "../../../src/interfaces/http/mcp/taskInputSchema.js";
import { openApiDocument } from "../../../src/interfaces/http/rest/openApiDocument.js";
import { resolveServeSettings } from "../../../src/interfaces/http/serveSettings.js";
import { FRAME_ACTIONS, STEP_FIELDS } from "../../../src/task/readStep.js";
import { TASK_FIELDS } from "../../../src/task/validateTask.js";

type Schema = { properties: Record<string, unknown> & { steps: { items: { properties: Record<string, unknown> } } } };

describe("the typed task", () => {
  test("lists every top-level field the validator accepts and no other", () => {
    assert.deepEqual(Object.keys((taskInputSchema() as Schema).properties).sort(), [...TASK_FIELDS].sort());
  });

  test("lists every step field of every action (frame on the actions that take one), timeoutMs, and no other; envVar stays out (the same lookup as secret)", () => {
    const accepted = new Set([
      "action",
      "timeoutMs",
      ...Object.values(STEP_FIELDS)
        .flat()
        .filter((field) => field !== "envVar"),
      ...(FRAME_ACTIONS.size > 0 ? ["frame"] : []),
    ]);
    assert.deepEqual(Object.keys((taskInputSchema() as Schema).properties.steps.items.properties).sort(), [...accepted].sort());
  });

  test("the OpenAPI document's Task is the same schema, with REST's description naming frame", () => {
    const document = openApiDocument(resolveServeSettings({ host: "127.0.0.1", port: 8787 }), "test") as {
      components: { schemas: { Task: Schema & { description: string } } };
    };
    const task = document.components.schemas.Task;
    assert.deepEqual(task.properties, (taskInputSchema() as Schema).properties);
    assert.match(task.description, /frame/);
    assert.match(task.description, /fill_secret takes none/);
  });
});
