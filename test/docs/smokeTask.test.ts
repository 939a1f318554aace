// docs/SMOKE_TASK.json: the draft read-only smoke task for provider activation. Never run here (no
// internet); these tests only hold it to its promises.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { parseTaskText } from "../../src/task/parseTaskText.js";
import { isExpectation } from "../../src/task/taskTypes.js";

const text = readFileSync(new URL("../../docs/SMOKE_TASK.json", import.meta.url), "utf8");

describe("docs/SMOKE_TASK.json", () => {
  const result = parseTaskText(text);

  test("validates", () => {
    assert.ok(result.ok, JSON.stringify(result.ok ? [] : result.errors));
  });

  test("is read-only, needs no approval and no secret, and only looks", () => {
    assert.ok(result.ok);
    const task = result.value;
    assert.equal(task.risk, "read_only");
    assert.equal(task.approved, false);
    assert.equal(task.secretApproval, false);
    assert.equal(task.evidenceRetention, "minimal");
    const looking = new Set(["wait_for", "extract_text", "extract_attribute", "expect_text", "expect_url"]);
    for (const step of task.steps) assert.ok(looking.has(step.action), `${step.action} could act on the page`);
  });

  test("targets the public page https://example.com/ and nothing else", () => {
    assert.ok(result.ok);
    assert.equal(result.value.target.url, "https://example.com/");
    assert.deepEqual(result.value.allowedHosts, []);
  });

  test("has explicit expect_text and expect_url expectations, so PASS means something", () => {
    assert.ok(result.ok);
    const expectations = result.value.steps.filter(isExpectation);
    assert.ok(expectations.some((s) => s.action === "expect_text"));
    assert.ok(expectations.some((s) => s.action === "expect_url"));
  });

  test("says it is a draft", () => {
    assert.ok(result.ok);
    assert.match(result.value.label ?? "", /^DRAFT\b/);
  });

  test("is already in normalized form, so what is reviewed is what is digested", () => {
    assert.ok(result.ok);
    assert.deepEqual(JSON.parse(text), result.value);
  });
});
