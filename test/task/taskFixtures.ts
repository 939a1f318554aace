// Shared builders and assertions for the task-contract tests. Not a test file itself.
import assert from "node:assert/strict";
import type { Problem } from "../../src/errors/result.js";
import type { Task } from "../../src/task/taskTypes.js";
import { validateTask } from "../../src/task/validateTask.js";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type RawTask = Record<string, unknown>;

export const OPERATION_ID = "3f0c6a52-6c1e-4a8e-9c39-2b1c1f1d4e55";

/** The smallest valid task: one expectation, read-only, every optional field left out. */
export function minimalTask(overrides: RawTask = {}): RawTask {
  return {
    schemaVersion: "errand.task.v1",
    operationId: OPERATION_ID,
    target: { url: "https://example.com/" },
    risk: "read_only",
    steps: [{ action: "expect_text", text: "Example Domain" }],
    ...overrides,
  };
}

/** A minimal task whose only step is `step` (approvals set so that only the step itself is judged). */
export function taskWithStep(step: unknown): RawTask {
  return minimalTask({ steps: [step], secretApproval: true });
}

/** Valid example of every action, used wherever a test wants "each kind of step". */
export const EXAMPLE_STEPS: Record<string, Record<string, unknown>> = {
  goto: { action: "goto", url: "https://example.com/next" },
  wait_for: { action: "wait_for", selector: "#ready" },
  click: { action: "click", selector: "button.save" },
  fill: { action: "fill", selector: "#name", value: "Ada" },
  fill_secret: { action: "fill_secret", selector: "#password", secret: "PORTAL_PASSWORD" },
  type: { action: "type", selector: "#search", text: "receipts" },
  select: { action: "select", selector: "#country", value: "fr" },
  press: { action: "press", key: "Enter", selector: "#search" },
  check: { action: "check", selector: "#terms" },
  uncheck: { action: "uncheck", selector: "#newsletter" },
  upload: { action: "upload", selector: "#attachment", file: "invoice-42.pdf" },
  extract_text: { action: "extract_text", selector: "h1", name: "heading" },
  extract_attribute: { action: "extract_attribute", selector: "a.more", attribute: "href", name: "moreLink" },
  expect_text: { action: "expect_text", text: "Saved", selector: "#result", match: "exact" },
  expect_url: { action: "expect_url", url: "https://example.com/done", match: "prefix" },
  expect_count: { action: "expect_count", selector: "li.loan", count: 3, match: "at_least" },
};

/** Validates and returns the normalized task, failing the test with the problems if it is refused. */
export function expectValid(input: unknown): Task {
  const result = validateTask(input);
  if (!result.ok) assert.fail(`expected a valid task, got ${JSON.stringify(result.errors, null, 2)}`);
  return result.value;
}

/** Validates and returns the problems, failing the test if the task is accepted. */
export function problemsOf(input: unknown): Problem[] {
  const result = validateTask(input);
  if (result.ok) assert.fail(`expected the task to be refused, but it normalized to ${JSON.stringify(result.value)}`);
  assert.ok(result.errors.length > 0, "a refusal carries at least one problem");
  for (const problem of result.errors) {
    assert.equal(typeof problem.message, "string");
    assert.ok(problem.message.length > 0, "every problem has a message");
  }
  return result.errors;
}

/** Asserts that the input is refused with exactly one problem, of this code at this JSON Pointer. */
export function expectOnlyProblem(input: unknown, code: Problem["code"], path: string): Problem {
  const problems = problemsOf(input);
  assert.deepEqual(
    problems.map((p) => ({ code: p.code, path: p.path })),
    [{ code, path }],
    `problems were ${JSON.stringify(problems)}`,
  );
  return problems[0]!;
}

/** Asserts that among the problems there is one of this code at this path. */
export function expectProblem(input: unknown, code: Problem["code"], path: string): Problem {
  const problems = problemsOf(input);
  const found = problems.find((p) => p.code === code && p.path === path);
  assert.ok(found, `expected ${code} at "${path}", problems were ${JSON.stringify(problems)}`);
  return found;
}

/** Adds an own, enumerable property the way JSON.parse does, even for "__proto__". */
export function withOwnKey<T extends object>(object: T, key: string, value: unknown): T {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  return object;
}

/** Resolves an RFC 6901 JSON Pointer in a JSON value; `found: false` when some token is absent. */
export function resolvePointer(document: unknown, path: string): { found: true; value: unknown } | { found: false } {
  if (path === "") return { found: true, value: document };
  if (!path.startsWith("/")) return { found: false };
  let current = document;
  for (const raw of path.slice(1).split("/")) {
    const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(current)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token) || Number(token) >= current.length) return { found: false };
      current = current[Number(token)];
    } else if (typeof current === "object" && current !== null && Object.hasOwn(current, token)) {
      current = (current as Record<string, unknown>)[token];
    } else {
      return { found: false };
    }
  }
  return { found: true, value: current };
}

/** Splits a pointer into its parent pointer and last (unescaped) token. */
export function parentOf(path: string): { parent: string; token: string } {
  const cut = path.lastIndexOf("/");
  return {
    parent: path.slice(0, cut),
    token: path
      .slice(cut + 1)
      .replace(/~1/g, "/")
      .replace(/~0/g, "~"),
  };
}

export const POINTER_SYNTAX = /^(\/([^~/]|~[01])*)*$/;
