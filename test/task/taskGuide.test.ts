// The task guide handed to assistants (errand_task_schema) agrees with the validator.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { FRAME_ACTIONS, STEP_ACTIONS } from "../../src/task/readStep.js";
import { taskGuide } from "../../src/task/taskGuide.js";
import { validateTask } from "../../src/task/validateTask.js";

describe("taskGuide", () => {
  test("every example validates", () => {
    for (const example of taskGuide().examples) {
      const result = validateTask(example.task);
      assert.ok(result.ok, `${example.title}: ${JSON.stringify(result.ok ? [] : result.errors)}`);
    }
  });

  test("every action is described with its fields, and writes are marked as changing the site", () => {
    const guide = taskGuide();
    assert.deepEqual(guide.actions.map((a) => a.action).sort(), [...STEP_ACTIONS].sort());
    assert.deepEqual(
      guide.actions
        .filter((a) => a.changesSite)
        .map((a) => a.action)
        .sort(),
      ["check", "click", "fill", "fill_secret", "press", "select", "type", "uncheck", "upload"],
    );
  });

  test("frame is listed on exactly the actions the validator lets name one (every selector step but fill_secret)", () => {
    for (const { action, fields } of taskGuide().actions) {
      const refused = validateTask({
        schemaVersion: "errand.task.v1",
        operationId: "3f0c6a52-6c1e-4a8e-9c39-2b1c1f1d4e55",
        target: { url: "https://example.com/" },
        risk: "read_only",
        steps: [{ action, frame: "#f" }],
      });
      const frameUnknown = !refused.ok && refused.errors.some((p) => p.code === "unknown_field" && p.path === "/steps/0/frame");
      assert.equal(fields.includes("frame"), !frameUnknown, action);
      assert.equal(fields.includes("frame"), FRAME_ACTIONS.has(action), action);
    }
    assert.ok(!FRAME_ACTIONS.has("fill_secret") && taskGuide().rules.some((r) => r.includes("fill_secret takes no frame")));
  });
});
