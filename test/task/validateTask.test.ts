// Every rule of task schema v1 gets a test that tries to slip past it and checks the exact error
// code and the JSON Pointer of the offending field. Normalization tests at the end.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { canonicalJson } from "../../src/task/canonicalJson.js";
import { TASK_LIMITS } from "../../src/task/limits.js";
import { parseTaskText } from "../../src/task/parseTaskText.js";
import { STEP_FIELDS } from "../../src/task/readStep.js";
import { validateTask } from "../../src/task/validateTask.js";
import { propertyRuns } from "../support/propertyRuns.js";
import {
  EXAMPLE_STEPS,
  OPERATION_ID,
  expectOnlyProblem,
  expectProblem,
  expectValid,
  minimalTask,
  problemsOf,
  taskWithStep,
  withOwnKey,
} from "./taskFixtures.js";

const ACTIONS = Object.keys(STEP_FIELDS);

describe("validateTask: the input must be a task object", () => {
  for (const value of [null, [], [minimalTask()], "task", 42, true]) {
    test(`refuses ${JSON.stringify(value)?.slice(0, 30)} as a whole with invalid_type at ""`, () => {
      expectOnlyProblem(value, "invalid_type", "");
    });
  }

  test("accepts the minimal task and fills every default", () => {
    assert.deepEqual(expectValid(minimalTask()), {
      schemaVersion: "errand.task.v1",
      operationId: OPERATION_ID,
      target: { url: "https://example.com/" },
      allowedHosts: [],
      risk: "read_only",
      approved: false,
      secretApproval: false,
      evidenceRetention: "minimal",
      provider: "auto",
      steps: [{ action: "expect_text", text: "Example Domain", match: "contains" }],
    });
  });

  test("accepts one example of every action", () => {
    const task = expectValid(minimalTask({ steps: Object.values(EXAMPLE_STEPS), secretApproval: true }));
    assert.deepEqual(
      task.steps.map((s) => s.action),
      ACTIONS,
    );
  });

  test("a click may go on to follow the new tab it opens; without then it normalizes as before", () => {
    const task = expectValid(
      minimalTask({
        steps: [
          { action: "click", selector: "#print", then: "follow_new_tab" },
          { action: "click", selector: "#print" },
        ],
      }),
    );
    assert.deepEqual(task.steps, [
      { action: "click", selector: "#print", then: "follow_new_tab" },
      { action: "click", selector: "#print" },
    ]);
  });

  test("frame: one iframe selector or a list of at most 3 (nested), normalized to the list; absent stays absent", () => {
    const task = expectValid(
      minimalTask({
        steps: [
          { action: "fill", frame: "#pay", selector: "#card", value: "4242" },
          { action: "expect_text", frame: ["#outer", "#inner"], selector: "#paid", text: "paid" },
          { action: "click", selector: "#go" },
        ],
      }),
    );
    assert.deepEqual(task.steps, [
      { action: "fill", frame: ["#pay"], selector: "#card", value: "4242" },
      { action: "expect_text", frame: ["#outer", "#inner"], selector: "#paid", text: "paid", match: "contains" },
      { action: "click", selector: "#go" },
    ]);
    expectOnlyProblem(taskWithStep({ action: "click", frame: ["a", "b", "c", "d"], selector: "#go" }), "too_many", "/steps/0/frame");
    expectOnlyProblem(taskWithStep({ action: "click", frame: [], selector: "#go" }), "too_short", "/steps/0/frame");
    expectOnlyProblem(taskWithStep({ action: "click", frame: ["#a", 3], selector: "#go" }), "invalid_type", "/steps/0/frame/1");
    expectOnlyProblem(taskWithStep({ action: "click", frame: {}, selector: "#go" }), "invalid_type", "/steps/0/frame");
    expectOnlyProblem(taskWithStep({ action: "press", frame: "#a", key: "Enter" }), "missing_field", "/steps/0/selector");
    expectOnlyProblem(taskWithStep({ action: "goto", frame: "#a", url: "https://example.com/" }), "unknown_field", "/steps/0/frame");
    const secretIntoFrame = expectOnlyProblem(
      taskWithStep({ action: "fill_secret", frame: "#a", selector: "#pw", secret: "PW" }),
      "unknown_field",
      "/steps/0/frame",
    );
    assert.match(secretIntoFrame.message, /fill_secret takes no "frame".*never inside an iframe/);
  });

  test("a whole number given as -0 (an object can hold it, JSON text cannot) normalizes to 0, so the task reads the same as its text", () => {
    const task = expectValid(
      minimalTask({
        risk: "reversible_write",
        approved: true,
        steps: [
          { action: "expect_count", selector: "#a", count: -0 },
          { action: "upload", selector: "#f", file: { download: -0 } },
        ],
      }),
    );
    assert.ok(Object.is((task.steps[0] as { count: number }).count, 0));
    assert.ok(Object.is((task.steps[1] as { file: { download: number } }).file.download, 0));
    assert.deepEqual(JSON.parse(JSON.stringify(task)), task);
  });

  test("selectors may not use Playwright's internal:control engine (enter-frame would skip the frame's host check), in selector or frame", () => {
    expectOnlyProblem(
      taskWithStep({ action: "click", selector: "iframe >> internal:control=enter-frame >> #pay" }),
      "internal_selector_engine",
      "/steps/0/selector",
    );
    expectOnlyProblem(
      taskWithStep({ action: "expect_text", text: "x", selector: "#a >> INTERNAL : control = enter-frame >> p" }),
      "internal_selector_engine",
      "/steps/0/selector",
    );
    expectOnlyProblem(
      taskWithStep({ action: "click", frame: ["#a", "#b >> internal:control=enter-frame >> #c"], selector: "#go" }),
      "internal_selector_engine",
      "/steps/0/frame/1",
    );
  });

  test("reports every problem at once, not only the first", () => {
    const problems = problemsOf({ schemaVersion: "errand.task.v2", risk: "yolo", extra: 1, steps: [] });
    assert.deepEqual(problems.map((p) => `${p.code} ${p.path}`).sort(), [
      "invalid_enum /risk",
      "missing_field /operationId",
      "missing_field /target",
      "too_short /steps",
      "unknown_field /extra",
      "unsupported_schema_version /schemaVersion",
    ]);
  });

  test("never modifies its input", () => {
    const input = minimalTask({
      operationId: OPERATION_ID.toUpperCase(),
      allowedHosts: ["B.example.com.", "a.example.com"],
      steps: [{ action: "extract_attribute", selector: "a", attribute: " TITLE ", name: "t" }],
    });
    const before = structuredClone(input);
    expectValid(input);
    assert.deepEqual(input, before);
  });
});

describe("validateTask: unknown fields are refused at their own path", () => {
  test("at top level", () => {
    expectOnlyProblem(minimalTask({ approve: true }), "unknown_field", "/approve");
  });

  test("in target", () => {
    expectOnlyProblem(minimalTask({ target: { url: "https://example.com/", method: "POST" } }), "unknown_field", "/target/method");
  });

  test("in timeouts", () => {
    expectOnlyProblem(minimalTask({ timeouts: { taskMs: 5000, retries: 3 } }), "unknown_field", "/timeouts/retries");
  });

  for (const action of ACTIONS) {
    test(`in a ${action} step`, () => {
      const step = { ...EXAMPLE_STEPS[action], force: true };
      expectOnlyProblem(minimalTask({ steps: [EXAMPLE_STEPS["click"], step], secretApproval: true }), "unknown_field", "/steps/1/force");
    });
  }

  test("a field that belongs to another action is unknown here (click has no value)", () => {
    expectOnlyProblem(taskWithStep({ action: "click", selector: "#go", value: "x" }), "unknown_field", "/steps/0/value");
  });

  test("key names are escaped in the pointer (RFC 6901 ~0 and ~1)", () => {
    expectOnlyProblem(minimalTask({ "a/b~c": 1 }), "unknown_field", "/a~1b~0c");
  });

  test("empty-string key has the pointer '/'", () => {
    expectOnlyProblem(minimalTask({ "": 1 }), "unknown_field", "/");
  });

  test("__proto__, constructor and prototype keys from JSON.parse are unknown fields, not prototype tricks", () => {
    const parsed = JSON.parse(
      `{"schemaVersion":"errand.task.v1","operationId":"${OPERATION_ID}","target":{"url":"https://example.com/","__proto__":{"x":1}},` +
        `"risk":"read_only","__proto__":{"approved":true},"constructor":{"prototype":{}},` +
        `"steps":[{"action":"click","selector":"#a","__proto__":{"script":"x"}}]}`,
    ) as unknown;
    const problems = problemsOf(parsed);
    assert.deepEqual(problems.map((p) => `${p.code} ${p.path}`).sort(), [
      "unknown_field /__proto__",
      "unknown_field /constructor",
      "unknown_field /steps/0/__proto__",
      "unknown_field /target/__proto__",
    ]);
  });

  test("a __proto__ key built with defineProperty is caught the same way", () => {
    expectOnlyProblem(withOwnKey(minimalTask(), "__proto__", { risk: "consequential" }), "unknown_field", "/__proto__");
  });

  test("an inherited property never counts as a field (approved on the prototype is ignored)", () => {
    const input = Object.assign(Object.create({ approved: true }) as object, minimalTask({ risk: "consequential" }));
    expectOnlyProblem(input, "approval_required", "/approved");
  });
});

describe("validateTask: no JavaScript or shell anywhere", () => {
  const CODE_FIELDS = ["script", "eval", "command", "js", "javascript", "shell", "code", "function", "expression", "exec", "cmd"];

  for (const field of CODE_FIELDS) {
    test(`"${field}" is refused at top level, in target, in timeouts and in every step`, () => {
      expectOnlyProblem(minimalTask({ [field]: "alert(1)" }), "unknown_field", `/${field}`);
      expectOnlyProblem(minimalTask({ target: { url: "https://example.com/", [field]: "rm -rf /" } }), "unknown_field", `/target/${field}`);
      expectOnlyProblem(minimalTask({ timeouts: { [field]: "x" } }), "unknown_field", `/timeouts/${field}`);
      for (const action of ACTIONS) {
        expectOnlyProblem(taskWithStep({ ...EXAMPLE_STEPS[action], [field]: "document.cookie" }), "unknown_field", `/steps/0/${field}`);
      }
    });
  }

  const NOT_ACTIONS = [
    "evaluate",
    "eval",
    "script",
    "run",
    "exec",
    "shell",
    "javascript",
    "evaluate_handle",
    "add_init_script",
    "route",
    "Click",
    "click ",
    " goto",
    "GOTO",
    "fill-secret",
    "fillSecret",
    "",
    "__proto__",
    "constructor",
    "toString",
    "hasOwnProperty",
  ];
  for (const action of NOT_ACTIONS) {
    test(`action ${JSON.stringify(action)} is unknown_action at /steps/0/action`, () => {
      const problem = expectOnlyProblem(taskWithStep({ action, selector: "#a", script: "x" }), "unknown_action", "/steps/0/action");
      assert.match(problem.message, /no JavaScript or shell/);
    });
  }

  for (const action of [1, null, true, ["click"], { name: "click" }]) {
    test(`non-string action ${JSON.stringify(action)} is unknown_action`, () => {
      expectOnlyProblem(taskWithStep({ action, selector: "#a" }), "unknown_action", "/steps/0/action");
    });
  }

  test("a step with no action is missing_field at /steps/N/action", () => {
    expectOnlyProblem(minimalTask({ steps: [EXAMPLE_STEPS["click"], { selector: "#a" }] }), "missing_field", "/steps/1/action");
  });

  test("the unknown action is reported at its own step index", () => {
    const steps = [EXAMPLE_STEPS["click"], EXAMPLE_STEPS["wait_for"], { action: "evaluate", expression: "1" }];
    expectOnlyProblem(minimalTask({ steps }), "unknown_action", "/steps/2/action");
  });
});

describe("validateTask: required fields are reported at the path they should have", () => {
  for (const field of ["schemaVersion", "operationId", "target", "risk", "steps"]) {
    test(`missing ${field} → missing_field /${field}`, () => {
      const task = minimalTask();
      delete task[field];
      expectOnlyProblem(task, "missing_field", `/${field}`);
    });
  }

  test("missing target.url → missing_field /target/url", () => {
    expectOnlyProblem(minimalTask({ target: {} }), "missing_field", "/target/url");
  });

  const REQUIRED: Record<string, string[]> = {
    goto: ["url"],
    wait_for: ["selector"],
    click: ["selector"],
    fill: ["selector", "value"],
    fill_secret: ["selector", "secret"],
    type: ["selector", "text"],
    select: ["selector", "value"],
    press: ["key"],
    upload: ["selector", "file"],
    check: ["selector"],
    uncheck: ["selector"],
    extract_text: ["selector", "name"],
    extract_attribute: ["selector", "attribute", "name"],
    expect_text: ["text"],
    expect_url: ["url"],
    expect_count: ["selector", "count"],
  };
  test("the required-field table covers every action", () => {
    assert.deepEqual(Object.keys(REQUIRED).sort(), [...ACTIONS].sort());
  });
  for (const [action, fields] of Object.entries(REQUIRED)) {
    for (const field of fields) {
      test(`${action} without ${field} → missing_field /steps/0/${field}`, () => {
        const step: Record<string, unknown> = { ...EXAMPLE_STEPS[action] };
        delete step[field];
        expectOnlyProblem(taskWithStep(step), "missing_field", `/steps/0/${field}`);
      });
    }
  }

  test("wait_for keeps its shape without state (so its digest is unchanged); a url is normalized like a goto's", () => {
    const task = expectValid(
      minimalTask({
        steps: [
          { action: "wait_for", selector: "#a" },
          { action: "wait_for", selector: "#a", state: "visible" },
          { action: "wait_for", selector: "#a", state: "detached" },
          { action: "wait_for", url: "HTTPS://Example.COM:443/app/./loans" },
          { action: "wait_for", url: "https://example.com/app", match: "prefix" },
        ],
      }),
    );
    assert.deepEqual(task.steps, [
      { action: "wait_for", selector: "#a" },
      { action: "wait_for", selector: "#a" },
      { action: "wait_for", selector: "#a", state: "detached" },
      { action: "wait_for", url: "https://example.com/app/loans", match: "exact" },
      { action: "wait_for", url: "https://example.com/app", match: "prefix" },
    ]);
  });

  test("extract_text keeps its shape without all (so its digest is unchanged); expect_count's match defaults to exact", () => {
    const task = expectValid(
      minimalTask({
        steps: [
          { action: "extract_text", selector: "h1", name: "a" },
          { action: "extract_text", selector: "h1", name: "b", all: false },
          { action: "extract_text", selector: "li", name: "c", all: true },
          { action: "extract_text", selector: "li", name: "d", all: true, max: 200 },
          { action: "expect_count", selector: "li", count: 0 },
        ],
      }),
    );
    assert.deepEqual(task.steps, [
      { action: "extract_text", selector: "h1", name: "a" },
      { action: "extract_text", selector: "h1", name: "b" },
      { action: "extract_text", selector: "li", name: "c", all: true },
      { action: "extract_text", selector: "li", name: "d", all: true, max: 200 },
      { action: "expect_count", selector: "li", count: 0, match: "exact" },
    ]);
  });

  test("optional step fields may be left out: expect_text selector and match, expect_url match", () => {
    const task = expectValid(
      minimalTask({
        steps: [
          { action: "expect_text", text: "Hi" },
          { action: "expect_url", url: "https://example.com/x" },
        ],
      }),
    );
    assert.deepEqual(task.steps, [
      { action: "expect_text", text: "Hi", match: "contains" },
      { action: "expect_url", url: "https://example.com/x", match: "exact" },
    ]);
  });
});

describe("validateTask: types and allowed values", () => {
  const cases: Array<[string, Record<string, unknown>, string, string]> = [
    ["approved as a string", { approved: "true" }, "invalid_type", "/approved"],
    ["secretApproval as a number", { secretApproval: 1 }, "invalid_type", "/secretApproval"],
    ["target as a string", { target: "https://example.com/" }, "invalid_type", "/target"],
    ["target.url as an object", { target: { url: { href: "https://example.com/" } } }, "invalid_type", "/target/url"],
    ["steps as an object", { steps: { 0: EXAMPLE_STEPS["click"] } }, "invalid_type", "/steps"],
    ["a step as a string", { steps: ["click #a"] }, "invalid_type", "/steps/0"],
    ["a step as an array", { steps: [["click", "#a"]] }, "invalid_type", "/steps/0"],
    ["allowedHosts as a string", { allowedHosts: "example.com" }, "invalid_type", "/allowedHosts"],
    ["an allowedHosts entry as a number", { allowedHosts: ["example.com", 7] }, "invalid_type", "/allowedHosts/1"],
    ["timeouts as an array", { timeouts: [1000] }, "invalid_type", "/timeouts"],
    ["label as a number", { label: 5 }, "invalid_type", "/label"],
    ["operationId as a number", { operationId: 12345 }, "invalid_type", "/operationId"],
    ["schemaVersion as a number", { schemaVersion: 1 }, "invalid_type", "/schemaVersion"],
    ["a press key outside the set", { steps: [{ action: "press", key: "Control+a" }] }, "invalid_enum", "/steps/0/key"],
    ["a press key as a character", { steps: [{ action: "press", key: "a", selector: "#q" }] }, "invalid_enum", "/steps/0/key"],
    ["a press without key", { steps: [{ action: "press", selector: "#q" }] }, "missing_field", "/steps/0/key"],
    ["a press with text", { steps: [{ action: "press", key: "Enter", text: "hi" }] }, "unknown_field", "/steps/0/text"],
    ["a click going on to something else", { steps: [{ action: "click", selector: "#print", then: "follow_popup" }] }, "invalid_enum", "/steps/0/then"],
    ["a click's then as a boolean", { steps: [{ action: "click", selector: "#print", then: true }] }, "invalid_enum", "/steps/0/then"],
    ["then on another action", { steps: [{ action: "fill", selector: "#q", value: "x", then: "follow_new_tab" }] }, "unknown_field", "/steps/0/then"],
    [
      "an upload file with ../",
      { risk: "reversible_write", approved: true, steps: [{ action: "upload", selector: "#f", file: "../etc/passwd" }] },
      "invalid_file_name",
      "/steps/0/file",
    ],
    [
      "an upload file name that is an absolute path",
      { risk: "reversible_write", approved: true, steps: [{ action: "upload", selector: "#f", file: "/etc/passwd" }] },
      "invalid_file_name",
      "/steps/0/file",
    ],
    [
      "an upload file name with a backslash",
      { risk: "reversible_write", approved: true, steps: [{ action: "upload", selector: "#f", file: "C:\\x.pdf" }] },
      "invalid_file_name",
      "/steps/0/file",
    ],
    [
      "an upload file name with a NUL",
      { risk: "reversible_write", approved: true, steps: [{ action: "upload", selector: "#f", file: "a.pdf\u0000.txt" }] },
      "invalid_file_name",
      "/steps/0/file",
    ],
    [
      "an upload file name that is ..",
      { risk: "reversible_write", approved: true, steps: [{ action: "upload", selector: "#f", file: ".." }] },
      "invalid_file_name",
      "/steps/0/file",
    ],
    [
      "an upload of a download out of range",
      { risk: "reversible_write", approved: true, steps: [{ action: "upload", selector: "#f", file: { download: 4 } }] },
      "invalid_number",
      "/steps/0/file/download",
    ],
    [
      "an upload of a download with another field",
      { risk: "reversible_write", approved: true, steps: [{ action: "upload", selector: "#f", file: { download: 0, path: "/x" } }] },
      "unknown_field",
      "/steps/0/file/path",
    ],
    [
      "an upload file as a number",
      { risk: "reversible_write", approved: true, steps: [{ action: "upload", selector: "#f", file: 3 }] },
      "invalid_type",
      "/steps/0/file",
    ],
    ["a check with a value", { steps: [{ action: "check", selector: "#terms", value: "yes" }] }, "unknown_field", "/steps/0/value"],
    ["an uncheck with an empty selector", { steps: [{ action: "uncheck", selector: "" }] }, "too_short", "/steps/0/selector"],
    ["a list max without all", { steps: [{ action: "extract_text", selector: "li", name: "rows", max: 5 }] }, "missing_field", "/steps/0/all"],
    [
      "a list max above the ceiling",
      { steps: [{ action: "extract_text", selector: "li", name: "rows", all: true, max: 201 }] },
      "invalid_number",
      "/steps/0/max",
    ],
    ["a list max of 0", { steps: [{ action: "extract_text", selector: "li", name: "rows", all: true, max: 0 }] }, "invalid_number", "/steps/0/max"],
    ["all as a string", { steps: [{ action: "extract_text", selector: "li", name: "rows", all: "yes" }] }, "invalid_type", "/steps/0/all"],
    [
      "a list name with no room for its numbers",
      { steps: [{ action: "extract_text", selector: "li", name: "n".repeat(61), all: true }] },
      "invalid_output_name",
      "/steps/0/name",
    ],
    ["a count below 0", { steps: [{ action: "expect_count", selector: "li", count: -1 }] }, "invalid_number", "/steps/0/count"],
    ["a count as a string", { steps: [{ action: "expect_count", selector: "li", count: "3" }] }, "invalid_number", "/steps/0/count"],
    ["a count match outside the set", { steps: [{ action: "expect_count", selector: "li", count: 3, match: "at_most" }] }, "invalid_enum", "/steps/0/match"],
    [
      "a list output that another extract would overwrite",
      {
        steps: [
          { action: "extract_text", selector: "li", name: "rows", all: true },
          { action: "extract_text", selector: "h1", name: "rows.001" },
        ],
      },
      "duplicate_output_name",
      "/steps/1/name",
    ],
    [
      "a list named after an earlier output's prefix",
      {
        steps: [
          { action: "extract_text", selector: "h1", name: "rows.count" },
          { action: "extract_text", selector: "li", name: "rows", all: true },
        ],
      },
      "duplicate_output_name",
      "/steps/1/name",
    ],
    ["a wait_for state outside the set", { steps: [{ action: "wait_for", selector: "#m", state: "gone" }] }, "invalid_enum", "/steps/0/state"],
    [
      "a wait_for with selector and url",
      { steps: [{ action: "wait_for", selector: "#m", url: "https://example.com/" }] },
      "conflicting_fields",
      "/steps/0/url",
    ],
    ["a wait_for with neither selector nor url", { steps: [{ action: "wait_for", state: "hidden" }] }, "missing_field", "/steps/0/selector"],
    ["a wait_for url with a state", { steps: [{ action: "wait_for", url: "https://example.com/", state: "visible" }] }, "conflicting_fields", "/steps/0/state"],
    ["a wait_for selector with a match", { steps: [{ action: "wait_for", selector: "#m", match: "prefix" }] }, "conflicting_fields", "/steps/0/match"],
    ["a wait_for url that is not http", { steps: [{ action: "wait_for", url: "javascript:alert(1)" }] }, "url_scheme_not_allowed", "/steps/0/url"],
    [
      "a wait_for url match outside the set",
      { steps: [{ action: "wait_for", url: "https://example.com/", match: "contains" }] },
      "invalid_enum",
      "/steps/0/match",
    ],
    ["risk outside the set", { risk: "write" }, "invalid_enum", "/risk"],
    ["risk in another case", { risk: "READ_ONLY" }, "invalid_enum", "/risk"],
    ["risk as a boolean", { risk: false }, "invalid_enum", "/risk"],
    ["provider outside the set", { provider: "chrome" }, "invalid_enum", "/provider"],
    ["evidenceRetention outside the set", { evidenceRetention: "everything" }, "invalid_enum", "/evidenceRetention"],
    ["evidence.screenshots outside the set", { evidence: { screenshots: "always" } }, "invalid_enum", "/evidence/screenshots"],
    ["evidence.screenshots as a boolean", { evidence: { screenshots: true } }, "invalid_enum", "/evidence/screenshots"],
    ["evidence as a string", { evidence: "final" }, "invalid_type", "/evidence"],
    ["an unknown field in evidence", { evidence: { screenshots: "final", video: true } }, "unknown_field", "/evidence/video"],
    ["another schema version", { schemaVersion: "errand.task.v2" }, "unsupported_schema_version", "/schemaVersion"],
    ["schema version with a space", { schemaVersion: "errand.task.v1 " }, "unsupported_schema_version", "/schemaVersion"],
  ];
  for (const [name, overrides, code, path] of cases) {
    test(`${name} → ${code} ${path}`, () => {
      expectOnlyProblem(minimalTask(overrides), code as never, path);
    });
  }

  test("step field types: selector as a number, value as null, text as an array", () => {
    expectOnlyProblem(taskWithStep({ action: "click", selector: 1 }), "invalid_type", "/steps/0/selector");
    expectOnlyProblem(taskWithStep({ action: "fill", selector: "#a", value: null }), "invalid_type", "/steps/0/value");
    expectOnlyProblem(taskWithStep({ action: "type", selector: "#a", text: ["a"] }), "invalid_type", "/steps/0/text");
  });

  test("match values outside their sets", () => {
    expectOnlyProblem(taskWithStep({ action: "expect_text", text: "a", match: "regex" }), "invalid_enum", "/steps/0/match");
    expectOnlyProblem(taskWithStep({ action: "expect_text", text: "a", match: "prefix" }), "invalid_enum", "/steps/0/match");
    expectOnlyProblem(taskWithStep({ action: "expect_url", url: "https://example.com/", match: "contains" }), "invalid_enum", "/steps/0/match");
  });

  for (const provider of ["auto", "local", "kernel", "browserless", "browserbase", "steel"]) {
    test(`provider ${provider} is accepted`, () => {
      assert.equal(expectValid(minimalTask({ provider })).provider, provider);
    });
  }

  test("evidenceRetention full is kept", () => {
    assert.equal(expectValid(minimalTask({ evidenceRetention: "full" })).evidenceRetention, "full");
  });

  test("evidence.screenshots on_failure and final are kept; none is the default and normalizes away", () => {
    assert.deepEqual(expectValid(minimalTask({ evidence: { screenshots: "final" } })).evidence, { screenshots: "final" });
    assert.deepEqual(expectValid(minimalTask({ evidence: { screenshots: "on_failure" } })).evidence, { screenshots: "on_failure" });
    for (const evidence of [{ screenshots: "none" }, {}]) {
      assert.equal(canonicalJson(expectValid(minimalTask({ evidence }))), canonicalJson(expectValid(minimalTask())));
    }
  });
});

describe("validateTask: text must be well-formed Unicode (canonical JSON has no form for lone surrogates)", () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ["label", minimalTask({ label: "bad \ud800 label" }), "/label"],
    ["expect_text text", taskWithStep({ action: "expect_text", text: "\udc00" }), "/steps/0/text"],
    ["fill value", taskWithStep({ action: "fill", selector: "#q", value: "x\ud83d" }), "/steps/0/value"],
    ["selector", taskWithStep({ action: "click", selector: "#\ud800" }), "/steps/0/selector"],
    ["target.url", minimalTask({ target: { url: "https://example.com/\ud800" } }), "/target/url"],
  ];
  for (const [where, input, path] of cases) {
    test(`an unpaired surrogate in ${where} is invalid_type`, () => {
      expectOnlyProblem(input, "invalid_type", path);
    });
  }

  test("paired surrogates (emoji) are fine", () => {
    assert.equal(expectValid(minimalTask({ label: "done \ud83d\ude02" })).label, "done 😂");
  });
});

describe("validateTask: operationId is a caller-chosen UUID", () => {
  for (const bad of [
    "not-a-uuid",
    "00000000-0000-0000-0000-000000000000",
    "{3f0c6a52-6c1e-4a8e-9c39-2b1c1f1d4e55}",
    "urn:uuid:3f0c6a52-6c1e-4a8e-9c39-2b1c1f1d4e55",
    "3f0c6a526c1e4a8e9c392b1c1f1d4e55",
    "3f0c6a52-6c1e-4a8e-9c39-2b1c1f1d4e55\n",
    " 3f0c6a52-6c1e-4a8e-9c39-2b1c1f1d4e55",
    "3f0c6a52-6c1e-4a8e-9c39-2b1c1f1d4e5g",
    "",
  ]) {
    test(`${JSON.stringify(bad)} → invalid_operation_id`, () => {
      expectOnlyProblem(minimalTask({ operationId: bad }), "invalid_operation_id", "/operationId");
    });
  }

  test("an overlong id is too_long", () => {
    expectOnlyProblem(minimalTask({ operationId: `${OPERATION_ID}-${"a".repeat(40)}` }), "too_long", "/operationId");
  });

  test("upper-case UUIDs are accepted and lowercased", () => {
    assert.equal(expectValid(minimalTask({ operationId: OPERATION_ID.toUpperCase() })).operationId, OPERATION_ID);
  });
});

describe("validateTask: size bounds (at the bound passes, one over fails)", () => {
  const origin = "https://example.com/";
  const urlOfLength = (n: number): string => origin + "a".repeat(n - origin.length);

  test(`target.url of ${TASK_LIMITS.urlChars} characters passes, ${TASK_LIMITS.urlChars + 1} is too_long`, () => {
    assert.equal(TASK_LIMITS.urlChars, 2048);
    expectValid(minimalTask({ target: { url: urlOfLength(2048) } }));
    expectOnlyProblem(minimalTask({ target: { url: urlOfLength(2049) } }), "too_long", "/target/url");
  });

  test("a URL that only grows past the bound once percent-encoded is too_long", () => {
    const url = origin + "é".repeat(1000); // 1,020 characters written, 6,020 after %C3%A9 encoding
    assert.ok(url.length < 2048);
    expectOnlyProblem(minimalTask({ target: { url } }), "too_long", "/target/url");
  });

  test("goto and expect_url URLs have the same bound", () => {
    expectValid(taskWithStep({ action: "goto", url: urlOfLength(2048) }));
    expectOnlyProblem(taskWithStep({ action: "goto", url: urlOfLength(2049) }), "too_long", "/steps/0/url");
    expectOnlyProblem(taskWithStep({ action: "expect_url", url: urlOfLength(2049) }), "too_long", "/steps/0/url");
  });

  test("selectors: 1024 passes, 1025 is too_long, empty is too_short, in every action that has one", () => {
    assert.equal(TASK_LIMITS.selectorChars, 1024);
    for (const action of ACTIONS) {
      if (!STEP_FIELDS[action as keyof typeof STEP_FIELDS].includes("selector")) continue;
      expectValid(taskWithStep({ ...EXAMPLE_STEPS[action], selector: "x".repeat(1024) }));
      expectOnlyProblem(taskWithStep({ ...EXAMPLE_STEPS[action], selector: "x".repeat(1025) }), "too_long", "/steps/0/selector");
      expectOnlyProblem(taskWithStep({ ...EXAMPLE_STEPS[action], selector: "" }), "too_short", "/steps/0/selector");
    }
  });

  const textFields: Array<[string, string]> = [
    ["fill", "value"],
    ["select", "value"],
    ["type", "text"],
    ["expect_text", "text"],
  ];
  for (const [action, field] of textFields) {
    test(`${action}.${field}: 10000 passes, 10001 is too_long`, () => {
      assert.equal(TASK_LIMITS.textChars, 10_000);
      expectValid(taskWithStep({ ...EXAMPLE_STEPS[action], [field]: "t".repeat(10_000) }));
      expectOnlyProblem(taskWithStep({ ...EXAMPLE_STEPS[action], [field]: "t".repeat(10_001) }), "too_long", `/steps/0/${field}`);
    });
  }

  test("type and expect_text need at least one character; fill and select may set an empty value", () => {
    expectOnlyProblem(taskWithStep({ action: "type", selector: "#q", text: "" }), "too_short", "/steps/0/text");
    expectOnlyProblem(taskWithStep({ action: "expect_text", text: "" }), "too_short", "/steps/0/text");
    expectValid(taskWithStep({ action: "fill", selector: "#q", value: "" }));
    expectValid(taskWithStep({ action: "select", selector: "#q", value: "" }));
  });

  test("label: 200 passes, 201 is too_long", () => {
    assert.equal(TASK_LIMITS.labelChars, 200);
    assert.equal(expectValid(minimalTask({ label: "L".repeat(200) })).label, "L".repeat(200));
    expectOnlyProblem(minimalTask({ label: "L".repeat(201) }), "too_long", "/label");
  });

  test("steps: 50 pass, 51 are too_many, 0 are too_short", () => {
    assert.equal(TASK_LIMITS.maxSteps, 50);
    const step = EXAMPLE_STEPS["wait_for"];
    expectValid(minimalTask({ steps: Array.from({ length: 50 }, () => step) }));
    expectOnlyProblem(minimalTask({ steps: Array.from({ length: 51 }, () => step) }), "too_many", "/steps");
    expectOnlyProblem(minimalTask({ steps: [] }), "too_short", "/steps");
  });

  test("allowedHosts: 20 pass, 21 are too_many (duplicates count before de-duplication)", () => {
    assert.equal(TASK_LIMITS.maxAllowedHosts, 20);
    const hosts = (n: number): string[] => Array.from({ length: n }, (_, i) => `h${i}.example.com`);
    expectValid(minimalTask({ allowedHosts: hosts(20) }));
    expectOnlyProblem(minimalTask({ allowedHosts: hosts(21) }), "too_many", "/allowedHosts");
    expectOnlyProblem(minimalTask({ allowedHosts: Array.from({ length: 21 }, () => "example.com") }), "too_many", "/allowedHosts");
  });

  test("an allowedHosts entry longer than any hostname is too_long", () => {
    expectOnlyProblem(minimalTask({ allowedHosts: ["a".repeat(300)] }), "too_long", "/allowedHosts/0");
  });

  test("output names: 64 characters pass, 65 are too_long; attribute names are bounded too", () => {
    expectValid(taskWithStep({ action: "extract_text", selector: "h1", name: "n".repeat(64) }));
    expectOnlyProblem(taskWithStep({ action: "extract_text", selector: "h1", name: "n".repeat(65) }), "too_long", "/steps/0/name");
    expectOnlyProblem(
      taskWithStep({ action: "extract_attribute", selector: "a", attribute: "a".repeat(TASK_LIMITS.attributeChars + 1), name: "x" }),
      "too_long",
      "/steps/0/attribute",
    );
  });

  test("timeouts: whole milliseconds within bounds", () => {
    expectValid(minimalTask({ timeouts: { taskMs: 1_000, stepMs: 100 } }));
    expectValid(minimalTask({ timeouts: { taskMs: 600_000, stepMs: 120_000 } }));
    expectOnlyProblem(minimalTask({ timeouts: { taskMs: 999 } }), "invalid_number", "/timeouts/taskMs");
    expectOnlyProblem(minimalTask({ timeouts: { taskMs: 600_001 } }), "invalid_number", "/timeouts/taskMs");
    expectOnlyProblem(minimalTask({ timeouts: { stepMs: 99 } }), "invalid_number", "/timeouts/stepMs");
    expectOnlyProblem(minimalTask({ timeouts: { stepMs: 1500.5 } }), "invalid_number", "/timeouts/stepMs");
    expectOnlyProblem(minimalTask({ timeouts: { stepMs: "1000" } }), "invalid_number", "/timeouts/stepMs");
    expectOnlyProblem(taskWithStep({ ...EXAMPLE_STEPS["click"], timeoutMs: 120_001 }), "invalid_number", "/steps/0/timeoutMs");
    expectOnlyProblem(taskWithStep({ ...EXAMPLE_STEPS["click"], timeoutMs: -1 }), "invalid_number", "/steps/0/timeoutMs");
    assert.equal(expectValid(taskWithStep({ ...EXAMPLE_STEPS["click"], timeoutMs: 100 })).steps[0]?.timeoutMs, 100);
  });

  describe("whole task: 256 KiB", () => {
    const bigTask = (steps: number, chars: number, ch = "t"): Record<string, unknown> =>
      minimalTask({ steps: Array.from({ length: steps }, () => ({ action: "expect_text", text: ch.repeat(chars) })) });

    test("a task just under 256 KiB passes", () => {
      const task = bigTask(26, 10_000);
      assert.ok(Buffer.byteLength(JSON.stringify(task)) < 256 * 1024);
      expectValid(task);
    });

    test("a task over 256 KiB made of individually valid steps is task_too_large at the document root", () => {
      const task = bigTask(27, 10_000);
      assert.ok(Buffer.byteLength(JSON.stringify(task)) > 256 * 1024);
      expectOnlyProblem(task, "task_too_large", "");
    });

    test("the bound counts UTF-8 bytes, not characters", () => {
      const task = bigTask(27, 5_000, "é"); // 135,000 characters, 270,000 bytes
      assert.ok(JSON.stringify(task).length < 256 * 1024);
      expectOnlyProblem(task, "task_too_large", "");
    });

    test("task text over 256 KiB is refused before parsing, even when it is only whitespace padding", () => {
      const text = JSON.stringify(minimalTask()) + " ".repeat(256 * 1024);
      const result = parseTaskText(text);
      assert.equal(result.ok, false);
      assert.deepEqual(result.ok ? [] : result.errors.map((p) => [p.code, p.path]), [["task_too_large", ""]]);
    });

    test("task text that is not JSON is invalid_json at the document root", () => {
      const result = parseTaskText('{"schemaVersion": ');
      assert.deepEqual(result.ok ? [] : result.errors.map((p) => [p.code, p.path]), [["invalid_json", ""]]);
    });
  });
});

describe("validateTask: extract_attribute never reads value", () => {
  const SPACES = [
    " ",
    "\t",
    "\n",
    "\r",
    "\v",
    "\f",
    "\u00a0",
    "\u1680",
    "\u2000",
    "\u2003",
    "\u200a",
    "\u2028",
    "\u2029",
    "\u202f",
    "\u205f",
    "\u3000",
    "\ufeff",
  ];
  const attempts = [
    "value",
    "VALUE",
    "Value",
    "vAlUe",
    " value",
    "value ",
    "\tvalue\n",
    "\r\nVALUE\r\n",
    "\u00a0value\u00a0",
    "\u3000Value\u3000",
    "\u2003VaLuE\u2028",
    "\ufeffvalue",
    "\u1680\u202fvalue\u205f\u2029",
    ...SPACES.map((s) => `${s}value${s}`),
  ];
  for (const attribute of attempts) {
    test(`attribute ${JSON.stringify(attribute)} → value_attribute_forbidden`, () => {
      const problem = expectOnlyProblem(
        taskWithStep({ action: "extract_attribute", selector: "#field", attribute, name: "out" }),
        "value_attribute_forbidden",
        "/steps/0/attribute",
      );
      assert.match(problem.message, /value/);
    });
  }

  test("property: any mix of case and surrounding whitespace around 'value' is refused", () => {
    const space = fc.constantFrom(...SPACES);
    const casing = fc.array(fc.boolean(), { minLength: 5, maxLength: 5 });
    fc.assert(
      fc.property(fc.array(space, { maxLength: 4 }), casing, fc.array(space, { maxLength: 4 }), (before, upper, after) => {
        const word = [..."value"].map((c, i) => (upper[i] === true ? c.toUpperCase() : c)).join("");
        const attribute = `${before.join("")}${word}${after.join("")}`;
        const result = validateTask(taskWithStep({ action: "extract_attribute", selector: "#f", attribute, name: "out" }));
        assert.equal(result.ok, false);
        assert.deepEqual(result.ok ? [] : result.errors.map((p) => [p.code, p.path]), [["value_attribute_forbidden", "/steps/0/attribute"]]);
      }),
      propertyRuns(300),
    );
  });

  test("whatever attribute is accepted, its normalized name is never 'value'", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 12 }), (attribute) => {
        const result = validateTask(taskWithStep({ action: "extract_attribute", selector: "#f", attribute, name: "out" }));
        if (result.ok) {
          const step = result.value.steps[0];
          assert.ok(step?.action === "extract_attribute");
          assert.notEqual(step.attribute.trim().toLowerCase(), "value");
          assert.equal(step.attribute, step.attribute.trim().toLowerCase());
        }
      }),
      propertyRuns(500),
    );
  });

  test("other attributes pass, normalized to trimmed lower case", () => {
    for (const [raw, normalized] of [
      ["title", "title"],
      [" HREF\t", "href"],
      ["data-value", "data-value"],
      ["aria-valuenow", "aria-valuenow"],
      ["values", "values"],
    ]) {
      const step = expectValid(taskWithStep({ action: "extract_attribute", selector: "a", attribute: raw, name: "x" })).steps[0];
      assert.deepEqual(step, { action: "extract_attribute", selector: "a", attribute: normalized, name: "x" });
    }
  });

  for (const attribute of ["a b", "x=y", 'on"click', "'title'", "a>b", "a/b", "   "]) {
    test(`attribute ${JSON.stringify(attribute)} is invalid_attribute`, () => {
      expectOnlyProblem(taskWithStep({ action: "extract_attribute", selector: "a", attribute, name: "x" }), "invalid_attribute", "/steps/0/attribute");
    });
  }
});

describe("validateTask: extract output names", () => {
  for (const name of ["1st", "a b", "a/b", "ä", "$out", "-x"]) {
    test(`name ${JSON.stringify(name)} is invalid_output_name`, () => {
      expectOnlyProblem(taskWithStep({ action: "extract_text", selector: "h1", name }), "invalid_output_name", "/steps/0/name");
    });
  }

  test("two extract steps may not write the same name; the later one is reported", () => {
    const steps = [
      { action: "extract_text", selector: "h1", name: "title" },
      EXAMPLE_STEPS["click"],
      { action: "extract_attribute", selector: "a", attribute: "title", name: "title" },
    ];
    expectOnlyProblem(minimalTask({ steps }), "duplicate_output_name", "/steps/2/name");
  });
});

describe("validateTask: fill_secret names a declared secret, never a value", () => {
  for (const name of ["PORTAL_PASSWORD", "portal", "Portal_Password", "A", "a1_B2", `A${"9".repeat(63)}`, `p${"_".repeat(63)}`]) {
    test(`${JSON.stringify(name.slice(0, 20))} is a valid secret name, as "secret" and as "envVar"`, () => {
      const viaSecret = expectValid(taskWithStep({ action: "fill_secret", selector: "#password", secret: name })).steps[0];
      assert.deepEqual(viaSecret, { action: "fill_secret", selector: "#password", secret: name });
      const viaEnvVar = expectValid(taskWithStep({ action: "fill_secret", selector: "#password", envVar: name })).steps[0];
      assert.deepEqual(viaEnvVar, viaSecret, "envVar is another spelling of the same lookup and normalizes to secret");
    });
  }

  test("the two spellings of one task have the same canonical form (same digest)", () => {
    const a = expectValid(taskWithStep({ action: "fill_secret", selector: "#p", secret: "portal" }));
    const b = expectValid(taskWithStep({ action: "fill_secret", selector: "#p", envVar: "portal" }));
    assert.equal(canonicalJson(a), canonicalJson(b));
  });

  for (const name of [
    "_X",
    "1PASSWORD",
    "PORTAL-PASSWORD",
    "PORTAL PASSWORD",
    "PORTAL.PASSWORD",
    "$PORTAL_PASSWORD",
    "${PORTAL_PASSWORD}",
    "%PORTAL_PASSWORD%",
    "env:PORTAL_PASSWORD",
    "PORTAL_PASSWORD=hunter2",
    "PORTAL_PASSWORD\n",
    "\nPORTAL_PASSWORD",
    " PORTAL_PASSWORD",
    "PÄSSWORD",
    "ＰＡＳＳＷＯＲＤ",
    "correct horse battery staple",
    "P@ssw0rd!",
    "sk-live-4f9a8b7c6d5e",
  ]) {
    for (const field of ["secret", "envVar"]) {
      test(`${JSON.stringify(name)} in ${field} is invalid_secret_name`, () => {
        const problem = expectOnlyProblem(
          taskWithStep({ action: "fill_secret", selector: "#password", [field]: name }),
          "invalid_secret_name",
          `/steps/0/${field}`,
        );
        assert.ok(!problem.message.includes(name.trim()), "the refused value is not echoed back (it may be a secret)");
      });
    }
  }

  test("secret and envVar together are conflicting_fields; neither is missing_field", () => {
    expectOnlyProblem(taskWithStep({ action: "fill_secret", selector: "#p", secret: "portal", envVar: "portal" }), "conflicting_fields", "/steps/0/envVar");
    expectOnlyProblem(taskWithStep({ action: "fill_secret", selector: "#p" }), "missing_field", "/steps/0/secret");
  });

  test("a name longer than 64 characters is too_long", () => {
    expectOnlyProblem(taskWithStep({ action: "fill_secret", selector: "#p", secret: "A".repeat(65) }), "too_long", "/steps/0/secret");
  });

  test("empty and non-string names are refused", () => {
    expectOnlyProblem(taskWithStep({ action: "fill_secret", selector: "#p", envVar: "" }), "too_short", "/steps/0/envVar");
    expectOnlyProblem(taskWithStep({ action: "fill_secret", selector: "#p", secret: { value: "hunter2" } }), "invalid_type", "/steps/0/secret");
  });

  for (const field of ["value", "text", "password", "default"]) {
    test(`a "${field}" next to secret is an unknown field, not a place for the secret`, () => {
      expectOnlyProblem(
        taskWithStep({ action: "fill_secret", selector: "#p", secret: "PORTAL_PASSWORD", [field]: "hunter2" }),
        "unknown_field",
        `/steps/0/${field}`,
      );
    });
  }

  test("property: every accepted secret name matches ^[A-Za-z][A-Za-z0-9_]{0,63}$", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 70 }), fc.constantFrom("secret", "envVar"), (name, field) => {
        const result = validateTask(taskWithStep({ action: "fill_secret", selector: "#p", [field]: name }));
        assert.equal(result.ok, /^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(name));
      }),
      propertyRuns(500),
    );
  });
});

describe("validateTask: fill and type into credential fields must use fill_secret", () => {
  const CREDENTIAL_SELECTORS = [
    "#password",
    "#Password",
    "input[type=password]",
    'input[type="PASSWORD" i]',
    "#user_pwd",
    "#passwd",
    "#passcode",
    "#passphrase",
    "[name=otp]",
    "#otp-code",
    "#OTP",
    "[autocomplete=one-time-code]",
    "#one_time_pin",
    "#totp",
    "#mfa",
    "#2fa-code",
    "#api_key",
    "#apiKey",
    "#client-secret",
    "#access_token",
    "#cvv",
    "#cvc",
    "#pin",
    "#card-pin",
    "#security-code",
    'internal:label="Password"i',
    'role=textbox[name="Password"]',
    "form >> #secret",
    "input[type=pass\\77 ord]",
    "#pass\\word",
    "#\\70 assword",
    "#\\000070assword",
    "#to\\6B en",
  ];
  for (const selector of CREDENTIAL_SELECTORS) {
    test(`fill and type into ${JSON.stringify(selector)} → use_fill_secret`, () => {
      const fill = expectOnlyProblem(taskWithStep({ action: "fill", selector, value: "hunter2" }), "use_fill_secret", "/steps/0/selector");
      assert.match(fill.message, /fill_secret/);
      assert.ok(!fill.message.includes("hunter2"), "the literal is not echoed");
      expectOnlyProblem(taskWithStep({ action: "type", selector, text: "hunter2" }), "use_fill_secret", "/steps/0/selector");
    });
  }

  test("the same selectors are fine with fill_secret", () => {
    for (const selector of CREDENTIAL_SELECTORS) {
      expectValid(taskWithStep({ action: "fill_secret", selector, secret: "PORTAL_PASSWORD" }));
    }
  });

  for (const selector of [
    "#username",
    "#email",
    "#hotpink",
    "#spinner",
    "#compass",
    "#shipping",
    "#topic",
    "#options",
    "#footprint",
    "#pinned",
    "input[type=text]",
    "#search",
  ]) {
    test(`${JSON.stringify(selector)} is not mistaken for a credential field`, () => {
      expectValid(taskWithStep({ action: "fill", selector, value: "x" }));
      expectValid(taskWithStep({ action: "type", selector, text: "x" }));
    });
  }
});

describe("validateTask: approvals", () => {
  for (const risk of ["reversible_write", "consequential"]) {
    test(`${risk} without approved → approval_required /approved`, () => {
      const problem = expectOnlyProblem(minimalTask({ risk }), "approval_required", "/approved");
      assert.match(problem.message, /"approved": true/);
    });
    test(`${risk} with approved: false → approval_required /approved`, () => {
      expectOnlyProblem(minimalTask({ risk, approved: false }), "approval_required", "/approved");
    });
    test(`${risk} with approved: "true" (a string) is invalid_type, and still not approved`, () => {
      const problems = problemsOf(minimalTask({ risk, approved: "true" }));
      assert.deepEqual(problems.map((p) => `${p.code} ${p.path}`).sort(), ["approval_required /approved", "invalid_type /approved"]);
    });
    test(`${risk} with approved: 1 is not approval`, () => {
      expectProblem(minimalTask({ risk, approved: 1 }), "approval_required", "/approved");
    });
    test(`${risk} with approved: true passes`, () => {
      const task = expectValid(minimalTask({ risk, approved: true }));
      assert.equal(task.approved, true);
      assert.equal(task.risk, risk);
    });
  }

  test("read_only needs no approval", () => {
    assert.equal(expectValid(minimalTask()).approved, false);
  });

  const secretStep = EXAMPLE_STEPS["fill_secret"];
  test("fill_secret in a read_only task still needs secretApproval: true", () => {
    const problem = expectOnlyProblem(minimalTask({ steps: [secretStep] }), "secret_approval_required", "/secretApproval");
    assert.match(problem.message, /"secretApproval": true/);
  });

  test("secretApproval: false is refused the same way", () => {
    expectOnlyProblem(minimalTask({ steps: [secretStep], secretApproval: false }), "secret_approval_required", "/secretApproval");
  });

  test("approved: true does not stand in for secretApproval", () => {
    expectOnlyProblem(minimalTask({ risk: "consequential", approved: true, steps: [secretStep] }), "secret_approval_required", "/secretApproval");
  });

  test("secretApproval: true does not stand in for approved", () => {
    expectOnlyProblem(minimalTask({ risk: "consequential", secretApproval: true, steps: [secretStep] }), "approval_required", "/approved");
  });

  test("both missing are both reported", () => {
    const problems = problemsOf(minimalTask({ risk: "reversible_write", steps: [secretStep] }));
    assert.deepEqual(problems.map((p) => `${p.code} ${p.path}`).sort(), ["approval_required /approved", "secret_approval_required /secretApproval"]);
  });

  test("a fill_secret hidden as the 50th step is still noticed", () => {
    const steps = [...Array.from({ length: 49 }, () => EXAMPLE_STEPS["wait_for"]), secretStep];
    expectOnlyProblem(minimalTask({ steps }), "secret_approval_required", "/secretApproval");
  });

  test("secretApproval as a string is invalid_type and not approval", () => {
    const problems = problemsOf(minimalTask({ steps: [secretStep], secretApproval: "yes" }));
    assert.deepEqual(problems.map((p) => `${p.code} ${p.path}`).sort(), ["invalid_type /secretApproval", "secret_approval_required /secretApproval"]);
  });

  test("with both approvals a consequential secret task passes and keeps both flags", () => {
    const task = expectValid(minimalTask({ risk: "consequential", approved: true, secretApproval: true, steps: [secretStep] }));
    assert.equal(task.approved, true);
    assert.equal(task.secretApproval, true);
  });
});

describe("validateTask: URLs are WHATWG-valid http(s) URLs", () => {
  const SCHEME_REFUSED = [
    "javascript:alert(1)",
    "JAVASCRIPT:alert(1)",
    "  javascript:alert(1)",
    "java\tscript:alert(1)",
    "java\nscript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "file:///etc/passwd",
    "file://localhost/etc/passwd",
    "ftp://example.com/file",
    "blob:https://example.com/1b4e28ba-2fa1-11d2-883f-0016d3cca427",
    "ws://example.com/socket",
    "wss://example.com/socket",
    "chrome://settings",
    "about:blank",
    "view-source:https://example.com/",
    "mailto:someone@example.com",
    "vbscript:msgbox(1)",
  ];
  const INVALID = [
    "/relative/path",
    "relative/path",
    "example.com",
    "//example.com/",
    "?q=1",
    "#fragment",
    "https://",
    "http://exa mple.com/",
    "https://[::1",
    "http://example.com:99999/",
    "https://exa%mple.com/",
  ];

  const places: Array<[string, (url: string) => Record<string, unknown>, string]> = [
    ["target.url", (url) => minimalTask({ target: { url } }), "/target/url"],
    ["goto.url", (url) => taskWithStep({ action: "goto", url }), "/steps/0/url"],
    ["expect_url.url", (url) => taskWithStep({ action: "expect_url", url }), "/steps/0/url"],
  ];
  for (const [where, build, path] of places) {
    for (const url of SCHEME_REFUSED) {
      test(`${where} ${JSON.stringify(url)} → url_scheme_not_allowed`, () => {
        expectOnlyProblem(build(url), "url_scheme_not_allowed", path);
      });
    }
    for (const url of INVALID) {
      test(`${where} ${JSON.stringify(url)} → invalid_url`, () => {
        expectOnlyProblem(build(url), "invalid_url", path);
      });
    }
    test(`${where} "" → too_short`, () => {
      expectOnlyProblem(build(""), "too_short", path);
    });
  }

  test("URLs are normalized to their WHATWG href", () => {
    const cases: Array<[string, string]> = [
      ["HTTPS://EXAMPLE.com:443/a/./b/../c?q=1#f", "https://example.com/a/c?q=1#f"],
      ["http://example.com:80", "http://example.com/"],
      ["https://example.com:8443/", "https://example.com:8443/"],
      ["  https://example.com/  ", "https://example.com/"],
      ["https://bücher.example/straße", "https://xn--bcher-kva.example/stra%C3%9Fe"],
      ["https://example.com/a b", "https://example.com/a%20b"],
      ["https:example.com", "https://example.com/"],
      ["https://example.com\\path", "https://example.com/path"],
    ];
    for (const [raw, href] of cases) {
      assert.equal(expectValid(minimalTask({ target: { url: raw } })).target.url, href, raw);
      const step = expectValid(taskWithStep({ action: "goto", url: raw })).steps[0];
      assert.deepEqual(step, { action: "goto", url: href });
    }
  });
});

describe("validateTask: allowedHosts are plain hostnames, *.hostname or a plain IP literal", () => {
  const REFUSED = [
    "https://example.com",
    "http://example.com/",
    "example.com/path",
    "example.com:443",
    "example.com:",
    "user@example.com",
    "user:pw@example.com",
    "example.com?x=1",
    "example.com#frag",
    "example.com\\evil.com",
    "127.0.0.1.",
    "0x7f.1",
    "0x7f000001",
    "2130706433",
    "127.1",
    "0177.0.0.1",
    "１２７.０.０.１",
    "::1",
    "*.com",
    "*.COM.",
    "*.localhost",
    "*.",
    "*",
    "**.example.com",
    "*example.com",
    "ex*ample.com",
    "example.*.com",
    "*.*.example.com",
    "＊.example.com",
    "*.127.0.0.1",
    "*.0x7f.1",
    "example.com..",
    ".example.com",
    "a..example.com",
    "-bad.example.com",
    "bad-.example.com",
    "exa mple.com",
    " example.com",
    "example.com\t",
    "example.com\n",
    "%65xample.com",
    `${"x".repeat(64)}.example.com`,
    "",
  ];
  for (const host of REFUSED) {
    test(`${JSON.stringify(host)} → invalid_allowed_host`, () => {
      expectOnlyProblem(minimalTask({ allowedHosts: ["example.com", host] }), "invalid_allowed_host", "/allowedHosts/1");
    });
  }

  const ACCEPTED: Array<[string, string]> = [
    ["example.com", "example.com"],
    ["Example.COM", "example.com"],
    ["example.com.", "example.com"],
    ["*.example.com", "*.example.com"],
    ["*.Example.COM.", "*.example.com"],
    ["*.co.example", "*.co.example"],
    ["localhost", "localhost"],
    ["bücher.example", "xn--bcher-kva.example"],
    ["ｅｘａｍｐｌｅ.com", "example.com"],
    ["a-b.example.com", "a-b.example.com"],
    ["xn--bcher-kva.example", "xn--bcher-kva.example"],
    // Plain IP literals pass validation (for an operator allowance's IP); the network policy refuses
    // any the operator did not allow (test/executor/networkBoundary.test.ts).
    ["127.0.0.1", "127.0.0.1"],
    ["169.254.169.254", "169.254.169.254"],
    ["[::1]", "[::1]"],
    ["[FE80:0::1]", "[fe80::1]"],
  ];
  for (const [raw, normalized] of ACCEPTED) {
    test(`${JSON.stringify(raw)} is accepted as ${normalized}`, () => {
      assert.deepEqual(expectValid(minimalTask({ allowedHosts: [raw] })).allowedHosts, [normalized]);
    });
  }

  test("allowedHosts is a set: normalized, de-duplicated and sorted", () => {
    const task = expectValid(
      minimalTask({ allowedHosts: ["www.example.com", "*.CDN.example.com.", "API.example.com", "www.example.com.", "WWW.EXAMPLE.COM"] }),
    );
    assert.deepEqual(task.allowedHosts, ["*.cdn.example.com", "api.example.com", "www.example.com"]);
  });

  test("an empty list is the same as no list", () => {
    assert.deepEqual(expectValid(minimalTask({ allowedHosts: [] })), expectValid(minimalTask()));
  });
});

describe("normalization: two tasks that mean the same thing normalize identically", () => {
  const terse = {
    schemaVersion: "errand.task.v1",
    operationId: "3F0C6A52-6C1E-4A8E-9C39-2B1C1F1D4E55",
    target: { url: "HTTPS://WWW.Example.COM:443/shop/./cart/../items?sort=asc" },
    allowedHosts: ["WWW.example.com.", "*.cdn.Example.com", "www.example.com"],
    risk: "reversible_write",
    approved: true,
    steps: [
      { action: "goto", url: "https://www.example.com:443/a/../login" },
      { action: "extract_attribute", selector: "a.next", attribute: " HREF ", name: "next" },
      { action: "expect_text", text: "Welcome" },
      { action: "expect_url", url: "HTTPS://www.example.com/account" },
    ],
  };
  const explicit = {
    steps: [
      { url: "https://www.example.com/login", action: "goto" },
      { name: "next", attribute: "href", selector: "a.next", action: "extract_attribute" },
      { match: "contains", text: "Welcome", action: "expect_text" },
      { match: "exact", url: "https://www.example.com/account", action: "expect_url" },
    ],
    provider: "auto",
    evidenceRetention: "minimal",
    secretApproval: false,
    approved: true,
    risk: "reversible_write",
    allowedHosts: ["*.cdn.example.com.", "www.example.com"],
    target: { url: "https://www.example.com/shop/items?sort=asc" },
    operationId: "3f0c6a52-6c1e-4a8e-9c39-2b1c1f1d4e55",
    schemaVersion: "errand.task.v1",
  };

  test("terse and explicit spellings give the same normalized task and the same canonical bytes", () => {
    const a = expectValid(terse);
    const b = expectValid(explicit);
    assert.deepEqual(a, b);
    assert.equal(canonicalJson(a), canonicalJson(b));
    assert.deepEqual(a.allowedHosts, ["*.cdn.example.com", "www.example.com"]);
    assert.equal(a.target.url, "https://www.example.com/shop/items?sort=asc");
  });

  test("an empty timeouts object means the same as no timeouts", () => {
    assert.equal(canonicalJson(expectValid(minimalTask({ timeouts: {} }))), canonicalJson(expectValid(minimalTask())));
  });

  test("the normalized task is plain JSON: no undefined members, nothing JSON would drop", () => {
    for (const input of [terse, explicit, minimalTask({ steps: Object.values(EXAMPLE_STEPS), secretApproval: true, label: "x", timeouts: { stepMs: 500 } })]) {
      const task = expectValid(input);
      assert.deepEqual(JSON.parse(JSON.stringify(task)), task);
      const hasUndefined = (value: unknown): boolean =>
        value === undefined || (typeof value === "object" && value !== null && Object.values(value).some(hasUndefined));
      assert.equal(hasUndefined(task), false);
    }
  });

  test("normalizing a normalized task changes nothing", () => {
    for (const input of [terse, explicit]) {
      const once = expectValid(input);
      assert.deepEqual(expectValid(once), once);
    }
  });

  test("tasks that differ in meaning do not normalize the same", () => {
    const base = canonicalJson(expectValid(explicit));
    const variants: Array<Record<string, unknown>> = [
      { ...explicit, evidenceRetention: "full" },
      { ...explicit, provider: "local" },
      { ...explicit, allowedHosts: ["www.example.com"] },
      { ...explicit, risk: "consequential" },
      { ...explicit, label: "checkout" },
      { ...explicit, timeouts: { taskMs: 30_000 } },
      { ...explicit, evidence: { screenshots: "final" } },
      { ...explicit, operationId: "3f0c6a52-6c1e-4a8e-9c39-2b1c1f1d4e56" },
      { ...explicit, target: { url: "https://www.example.com/shop/items?sort=desc" } },
      { ...explicit, steps: [...explicit.steps.slice(0, 2), { action: "expect_text", text: "Welcome", match: "exact" }, explicit.steps[3]] },
      { ...explicit, steps: [...explicit.steps].reverse() },
    ];
    for (const variant of variants) {
      assert.notEqual(canonicalJson(expectValid(variant)), base, JSON.stringify(variant).slice(0, 120));
    }
  });
});
