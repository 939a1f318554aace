// The task guide handed to assistants (errand_task_schema) agrees with the validator.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { STEP_ACTIONS } from "../../src/task/readStep.js";
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
    assert.deepEqual(guide.actions.filter((a) => a.changesSite).map((a) => a.action).sort(), ["check", "click", "fill", "fill_secret", "press", "select", "type", "uncheck", "upload"]);
  });
});
