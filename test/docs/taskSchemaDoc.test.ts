// docs/TASK_SCHEMA.md is checked against the schema: every action, field, enum value, bound and
// validation code appears, and every JSON example on the page is valid.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { ERROR_CODES } from "../../src/errors/errorCodes.js";
import type { ErrorCode } from "../../src/errors/errorCodes.js";
import { TASK_LIMITS } from "../../src/task/limits.js";
import { STEP_FIELDS } from "../../src/task/readStep.js";
import { SECRET_NAME } from "../../src/task/secretName.js";
import { COUNT_MATCHES, PROVIDER_NAMES, RETENTION_LEVELS, RISK_LEVELS, TEXT_MATCHES, URL_MATCHES, WAIT_STATES } from "../../src/task/taskTypes.js";
import { validateTask } from "../../src/task/validateTask.js";
import { expectValid, minimalTask } from "../task/taskFixtures.js";

const doc = readFileSync(new URL("../../docs/TASK_SCHEMA.md", import.meta.url), "utf8");
const ACTIONS = Object.keys(STEP_FIELDS) as Array<keyof typeof STEP_FIELDS>;

/** Every fenced block as [language, body]. */
const blocks = [...doc.matchAll(/^```(\w*)\n([\s\S]*?)^```/gm)].map((m) => ({ lang: m[1] ?? "", body: m[2] ?? "" }));
const jsonExamples = blocks.filter((b) => b.lang === "json").map((b) => JSON.parse(b.body) as Record<string, unknown>);

/** Codes validateTask and parseTaskText can produce; the page must explain each. */
const VALIDATION_CODES: ErrorCode[] = [
  "invalid_json",
  "task_too_large",
  "invalid_type",
  "missing_field",
  "unknown_field",
  "unsupported_schema_version",
  "invalid_operation_id",
  "invalid_url",
  "url_scheme_not_allowed",
  "too_long",
  "too_short",
  "too_many",
  "invalid_enum",
  "unknown_action",
  "value_attribute_forbidden",
  "invalid_secret_name",
  "conflicting_fields",
  "use_fill_secret",
  "text_selector_with_secret",
  "invalid_allowed_host",
  "invalid_output_name",
  "duplicate_output_name",
  "invalid_attribute",
  "invalid_number",
  "invalid_site",
  "approval_required",
  "secret_approval_required",
];

const mentions = (name: string): boolean => doc.includes(`\`${name}\``);
const grouped = (n: number): string => n.toLocaleString("en-US");

describe("docs/TASK_SCHEMA.md agrees with the schema", () => {
  test("it has JSON examples, and every one is a whole task or a single step", () => {
    assert.ok(jsonExamples.length >= ACTIONS.length + 1);
    for (const example of jsonExamples) {
      assert.ok("schemaVersion" in example || "action" in example, `a json block is neither a task nor a step: ${JSON.stringify(example).slice(0, 80)}`);
    }
  });

  test("every whole-task example validates", () => {
    const tasks = jsonExamples.filter((e) => "schemaVersion" in e);
    assert.ok(tasks.length >= 2);
    for (const task of tasks) expectValid(task);
  });

  test("every step example is valid inside a minimal task", () => {
    for (const step of jsonExamples.filter((e) => !("schemaVersion" in e))) {
      const result = validateTask(minimalTask({ steps: [step], secretApproval: true }));
      assert.ok(result.ok, `${JSON.stringify(step)}: ${JSON.stringify(result.ok ? [] : result.errors)}`);
    }
  });

  for (const action of ACTIONS) {
    test(`action ${action}: has its own section and a valid standalone example`, () => {
      assert.match(doc, new RegExp(`^### \`${action}\`$`, "m"));
      assert.ok(
        jsonExamples.some((e) => e["action"] === action),
        `no {"action":"${action}",...} example block`,
      );
      for (const field of STEP_FIELDS[action]) assert.ok(mentions(field), `${action}.${field} is not mentioned`);
    });
  }

  test("every top-level field has a table row and a section", () => {
    const full = expectValid(minimalTask({ label: "x", site: "library", timeouts: { taskMs: 5_000 } }));
    const fields = Object.keys(full);
    assert.equal(fields.length, 13);
    for (const field of fields) {
      assert.match(doc, new RegExp(`^\\| \`${field}\` \\|`, "m"), `${field} has no row in the field table`);
      assert.match(doc, new RegExp(`^### \`${field}\`$`, "m"), `${field} has no section`);
    }
  });

  test("nested and per-step fields are named", () => {
    for (const field of ["url", "taskMs", "stepMs", "action", "timeoutMs", ...new Set(Object.values(STEP_FIELDS).flat())]) {
      assert.ok(mentions(field), `${field} is not mentioned`);
    }
  });

  test("every allowed value of every enum is named", () => {
    for (const value of [...RISK_LEVELS, ...PROVIDER_NAMES, ...RETENTION_LEVELS, ...TEXT_MATCHES, ...URL_MATCHES, ...COUNT_MATCHES, ...WAIT_STATES]) {
      assert.ok(mentions(value), `${value} is not mentioned`);
    }
  });

  test("the bounds stated are the bounds enforced", () => {
    const stated = [
      `${grouped(TASK_LIMITS.urlChars)} characters`,
      `${grouped(TASK_LIMITS.selectorChars)} characters`,
      `${grouped(TASK_LIMITS.textChars)} characters`,
      `${TASK_LIMITS.labelChars} characters`,
      `${TASK_LIMITS.taskBytes / 1024} KiB`,
      `${TASK_LIMITS.minSteps} to ${TASK_LIMITS.maxSteps}`,
      `up to ${TASK_LIMITS.maxAllowedHosts} entries`,
      `at most ${TASK_LIMITS.hostnameChars} characters`,
      `| ${TASK_LIMITS.attributeChars} characters |`,
      `${grouped(TASK_LIMITS.taskTimeoutMs.min)} to ${grouped(TASK_LIMITS.taskTimeoutMs.max)} ms`,
      `${grouped(TASK_LIMITS.stepTimeoutMs.min)} to ${grouped(TASK_LIMITS.stepTimeoutMs.max)} ms`,
      SECRET_NAME.source,
      `1 to ${TASK_LIMITS.listItems.max} texts, ${TASK_LIMITS.listItems.default} when absent`,
      `cut at ${grouped(TASK_LIMITS.listItemChars)} characters`,
      `0 to ${grouped(TASK_LIMITS.expectCountMax)}`,
    ];
    for (const phrase of stated) assert.ok(doc.includes(phrase), `the page does not say "${phrase}"`);
  });

  test("every validation code is explained, and every code named is a real one", () => {
    for (const code of VALIDATION_CODES) {
      assert.ok(Object.hasOwn(ERROR_CODES, code), `${code} is not in ERROR_CODES`);
      assert.ok(mentions(code), `${code} is not explained`);
    }
    const refusalTable = doc.slice(doc.indexOf("## What is refused"), doc.indexOf("## Normalization"));
    // The code column is the last cell of each row.
    const codeCells = [...refusalTable.matchAll(/^\|.*\| ([^|]+) \|$/gm)].map((m) => m[1]!).filter((cell) => cell !== "code" && !cell.startsWith("---"));
    const named = codeCells.flatMap((cell) => [...cell.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!));
    assert.ok(named.length >= VALIDATION_CODES.length, `only ${named.length} codes found in the refusal table`);
    const unknown = named.filter((code) => !Object.hasOwn(ERROR_CODES, code));
    assert.deepEqual(unknown, [], "codes in the refusal table that ERROR_CODES does not have");
  });
});
