import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { generateProgram } from "../../src/program/generateProgram.js";
import { parseProgramEvidence } from "../../src/program/parseProgramEvidence.js";
import type { ProgramEvidence, ProgramParams } from "../../src/program/programTypes.js";
import { validateTask } from "../../src/task/validateTask.js";

function paramsOf(partial: Record<string, unknown>): ProgramParams {
  const task = validateTask({
    schemaVersion: "errand.task.v1",
    operationId: randomUUID(),
    risk: "read_only",
    target: { url: "https://shop.example/" },
    ...partial,
  });
  if (!task.ok) throw new Error(JSON.stringify(task.errors));
  const program = generateProgram(task.value, { taskMs: 10_000, stepMs: 2_000 });
  if (!program.ok) throw new Error(program.refusal.message);
  return program.value.params;
}

const params = paramsOf({
  steps: [
    { action: "extract_text", selector: "#t", name: "title" },
    { action: "expect_text", text: "Hello", selector: "#t", match: "exact" },
    { action: "click", selector: "#go" },
  ],
});

/** Evidence the program could have produced for `params`: every step passed. */
function good(): ProgramEvidence {
  return {
    v: 1,
    status: "completed",
    targetStatus: 200,
    steps: [
      { step: 0, action: "extract_text", status: "passed" },
      { step: 1, action: "expect_text", status: "passed" },
      { step: 2, action: "click", status: "passed" },
    ],
    checks: [{ step: 1, action: "expect_text", expected: "Hello", match: "exact", selector: "#t", passed: true }],
    failure: null,
    outputs: { title: "Hello" },
    finalUrl: "https://shop.example/next",
    blocked: [{ url: "https://evil.example/x", method: "GET", resourceType: "Image", code: "host_not_allowed" }],
    blockedCount: 1,
    popupsClosed: 0,
    requestsAllowed: 3,
    writesSent: 0,
    durationMs: 1234,
  };
}

function refused(mutate: (evidence: Record<string, unknown>) => void, forParams: ProgramParams = params): string {
  const evidence = structuredClone(good()) as unknown as Record<string, unknown>;
  mutate(evidence);
  const result = parseProgramEvidence(evidence, forParams);
  assert.equal(result.ok, false, "the evidence was accepted");
  return result.ok ? "" : result.path;
}

describe("parseProgramEvidence", () => {
  it("accepts evidence the program could have produced", () => {
    const result = parseProgramEvidence(good(), params);
    assert.ok(result.ok);
    assert.deepEqual(result.value, good());
  });

  it("refuses a field more, a field missing, or a wrong type, naming the field", () => {
    assert.equal(
      refused((e) => (e["extra"] = 1)),
      "/extra",
    );
    assert.equal(
      refused((e) => delete e["writesSent"]),
      "/writesSent",
    );
    assert.equal(
      refused((e) => (e["targetStatus"] = "200")),
      "/targetStatus",
    );
    assert.equal(
      refused((e) => (e["v"] = 2)),
      "/v",
    );
  });

  it("refuses a PASS the task's own expectations do not account for", () => {
    // A check for an expectation the task does not have, or with another expected text.
    assert.equal(
      refused((e) => ((e["checks"] as Record<string, unknown>[])[0]!["expected"] = "Something else")),
      "/checks/0/expected",
    );
    assert.equal(
      refused((e) => ((e["checks"] as Record<string, unknown>[])[0]!["step"] = 0)),
      "/checks/0/step",
    );
    // The same expectation counted twice.
    assert.equal(
      refused((e) => (e["checks"] as unknown[]).push(structuredClone((e["checks"] as unknown[])[0]))),
      "/checks/1/step",
    );
    // A passed expectation without its check.
    assert.equal(
      refused((e) => (e["checks"] = [])),
      "/checks",
    );
    // A failed check beside a step said to have passed.
    assert.equal(
      refused((e) => Object.assign((e["checks"] as Record<string, unknown>[])[0]!, { passed: false, observed: "x" })),
      "/checks/0/passed",
    );
  });

  it("refuses steps out of order, another action, or a step run after the failure", () => {
    assert.equal(
      refused((e) => ((e["steps"] as Record<string, unknown>[])[2]!["action"] = "fill")),
      "/steps/2/action",
    );
    assert.equal(
      refused((e) => (e["steps"] as unknown[]).pop()),
      "/steps",
    );
    assert.equal(
      refused((e) => {
        e["status"] = "failed";
        e["failure"] = { step: 0, code: "step_failed", message: "x" };
      }),
      "/steps/0/status",
    );
    assert.equal(
      refused((e) => (e["failure"] = { step: null, code: "whatever", message: "x" })),
      "/failure/code",
    );
  });

  it("refuses outputs under another name, over their cap, and writes in a read_only task", () => {
    assert.equal(
      refused((e) => (e["outputs"] = { title: "x", stolen: "y" })),
      "/outputs/stolen",
    );
    assert.equal(
      refused((e) => (e["outputs"] = { title: "x".repeat(10_001) })),
      "/outputs/title",
    );
    assert.equal(
      refused((e) => (e["finalUrl"] = "x".repeat(501))),
      "/finalUrl",
    );
    assert.equal(
      refused((e) => (e["writesSent"] = 1)),
      "/writesSent",
    );
    assert.equal(
      refused((e) => (e["blockedCount"] = 0)),
      "/blockedCount",
    );
    assert.equal(
      refused((e) => (e["durationMs"] = -1)),
      "/durationMs",
    );
  });

  it("refuses what is not an object at all", () => {
    for (const value of [null, "evidence", 42, [], { data: good(), type: "application/json" }]) assert.equal(parseProgramEvidence(value, params).ok, false);
  });
});
