// Property tests: the validator never throws, every refusal is coded and points into the input,
// and normalization is idempotent. Run counts are sized to keep this file around a few seconds.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { ERROR_CODES } from "../../src/errors/errorCodes.js";
import type { Problem } from "../../src/errors/result.js";
import { canonicalJson } from "../../src/task/canonicalJson.js";
import { parseTaskText } from "../../src/task/parseTaskText.js";
import { requestDigest } from "../../src/task/requestDigest.js";
import { STEP_FIELDS } from "../../src/task/readStep.js";
import { looksLikeSecretField } from "../../src/task/secretFieldSelector.js";
import type { Task } from "../../src/task/taskTypes.js";
import { textMatchingConstruct } from "../../src/task/textMatchingConstruct.js";
import { validateTask } from "../../src/task/validateTask.js";
import { POINTER_SYNTAX, parentOf, resolvePointer, withOwnKey } from "./taskFixtures.js";
import { propertyRuns } from "../support/propertyRuns.js";

const FUZZ_KEY = new Uint8Array(32).fill(7);

/** Codes whose path may name a field that is absent (it says where the field should be). */
const MAY_POINT_AT_ABSENT = new Set<Problem["code"]>(["missing_field", "approval_required", "secret_approval_required"]);

/** Runs the validator and checks the shape of whatever it returns. */
function validateAndCheck(input: unknown): ReturnType<typeof validateTask> {
  const result = validateTask(input);
  if (result.ok) {
    assert.deepEqual(JSON.parse(JSON.stringify(result.value)), result.value, "a normalized task is plain JSON");
    // Whatever validates must also have a canonical form and a digest (no lone surrogates, no Infinity).
    assert.match(requestDigest(FUZZ_KEY, result.value), /^hmac-sha256:[0-9a-f]{64}$/);
    return result;
  }
  assert.ok(result.errors.length > 0, "a refusal has at least one problem");
  for (const problem of result.errors) checkProblem(input, problem);
  return result;
}

function checkProblem(input: unknown, problem: Problem): void {
  const where = `${problem.code} at ${JSON.stringify(problem.path)}`;
  assert.ok(Object.hasOwn(ERROR_CODES, problem.code), `${where}: code is one of ERROR_CODES`);
  assert.equal(typeof problem.message, "string");
  assert.ok(problem.message.length > 0, `${where}: has a message`);
  assert.match(problem.path, POINTER_SYNTAX, `${where}: path is a JSON Pointer`);
  if (resolvePointer(input, problem.path).found) return;
  assert.ok(MAY_POINT_AT_ABSENT.has(problem.code), `${where}: path resolves within the input`);
  const { parent, token } = parentOf(problem.path);
  const container = resolvePointer(input, parent);
  assert.ok(container.found, `${where}: the parent of a missing field exists`);
  const value = container.value;
  assert.ok(typeof value === "object" && value !== null && !Array.isArray(value), `${where}: the parent of a missing field is an object`);
  assert.ok(!Object.hasOwn(value, token), `${where}: the missing field is indeed absent`);
}

// ---- arbitraries for near-valid tasks ----------------------------------------------------------

const ACTIONS = Object.keys(STEP_FIELDS);
const label = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}[a-z0-9]$/).filter((l) => !l.includes("--"));
const domain = fc
  .tuple(fc.array(label, { minLength: 1, maxLength: 3 }), fc.constantFrom("com", "org", "example", "net", "test"))
  .map(([labels, tld]) => [...labels, tld].join("."));
const hostEntry = fc
  .tuple(domain, fc.boolean(), fc.boolean(), fc.boolean())
  .map(([d, wildcard, upper, dot]) => `${wildcard ? "*." : ""}${upper ? d.toUpperCase() : d}${dot ? "." : ""}`);
const httpUrl = fc.oneof(
  fc.webUrl({ validSchemes: ["http", "https"], withQueryParameters: true, withFragments: true }),
  fc
    .tuple(
      fc.constantFrom("http", "https", "HTTPS", "Http"),
      domain,
      fc.constantFrom("", ":443", ":80", ":8080"),
      fc.constantFrom("/", "/a/../b", "/./x", "", "/é?q=ü#f"),
    )
    .map(([scheme, host, port, path]) => `${scheme}://${host.toUpperCase()}${port}${path}`),
);
const selector = fc.oneof(
  fc.constantFrom("#a", "button.save", "text=Sign in", "[data-test=x]", "h1 >> nth=0", 'role=button[name="Go"]'),
  fc.string({ unit: "binary", minLength: 1, maxLength: 40 }),
);
const plainSelector = selector.filter((s) => !looksLikeSecretField(s));
const text = fc.string({ unit: "binary", minLength: 1, maxLength: 40 });
const outputName = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_.-]{0,12}$/);
const secretName = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,20}$/);
const attribute = fc
  .oneof(fc.constantFrom("href", "TITLE", " alt ", "data-id", "aria-label"), fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/))
  .filter((a) => a.trim().toLowerCase() !== "value");
const stepTimeout = fc.integer({ min: 100, max: 120_000 });
const optional = { requiredKeys: [] as never[] };

const validStep = fc.oneof(
  fc.record({ action: fc.constant("goto"), url: httpUrl, timeoutMs: stepTimeout }, { requiredKeys: ["action", "url"] }),
  fc.record({ action: fc.constantFrom("wait_for", "click"), selector, timeoutMs: stepTimeout }, { requiredKeys: ["action", "selector"] }),
  fc.record({ action: fc.constant("fill"), selector: plainSelector, value: fc.string({ unit: "binary", maxLength: 40 }) }),
  fc.record({ action: fc.constant("fill_secret"), selector, secret: secretName }),
  fc.record({ action: fc.constant("type"), selector: plainSelector, text }),
  fc.record({ action: fc.constant("select"), selector, value: fc.string({ maxLength: 20 }) }),
  fc.record({ action: fc.constant("extract_text"), selector, name: outputName }),
  fc.record({ action: fc.constant("extract_attribute"), selector, attribute, name: outputName }),
  fc.record({ action: fc.constant("expect_text"), text, selector, match: fc.constantFrom("contains", "exact") }, { requiredKeys: ["action", "text"] }),
  fc.record({ action: fc.constant("expect_url"), url: httpUrl, match: fc.constantFrom("exact", "prefix") }, { requiredKeys: ["action", "url"] }),
  fc.record(
    { action: fc.constant("extract_text"), selector, name: outputName, all: fc.constant(true), max: fc.integer({ min: 1, max: 200 }) },
    { requiredKeys: ["action", "selector", "name", "all"] },
  ),
  fc.record(
    { action: fc.constant("wait_for"), selector, state: fc.constantFrom("visible", "hidden", "attached", "detached"), timeoutMs: stepTimeout },
    { requiredKeys: ["action", "selector"] },
  ),
  fc.record({ action: fc.constant("wait_for"), url: httpUrl, match: fc.constantFrom("exact", "prefix") }, { requiredKeys: ["action", "url"] }),
  fc.record(
    { action: fc.constant("expect_count"), selector, count: fc.integer({ min: 0, max: 100_000 }), match: fc.constantFrom("exact", "at_least") },
    { requiredKeys: ["action", "selector", "count"] },
  ),
);

/** A task that should validate: approvals are set when the content needs them, output names are unique. */
const validTask = fc
  .record(
    {
      schemaVersion: fc.constant("errand.task.v1"),
      operationId: fc.tuple(fc.uuid(), fc.boolean()).map(([id, upper]) => (upper ? id.toUpperCase() : id)),
      label: fc.string({ maxLength: 30 }),
      target: fc.record({ url: httpUrl }),
      allowedHosts: fc.array(hostEntry, { maxLength: 6 }),
      risk: fc.constantFrom("read_only", "reversible_write", "consequential"),
      approved: fc.boolean(),
      secretApproval: fc.boolean(),
      evidenceRetention: fc.constantFrom("minimal", "full"),
      provider: fc.constantFrom("auto", "local", "kernel", "browserless", "browserbase", "steel"),
      timeouts: fc.record({ taskMs: fc.integer({ min: 1_000, max: 600_000 }), stepMs: stepTimeout }, optional),
      evidence: fc.record({ screenshots: fc.constantFrom("none", "on_failure", "final") }, optional),
      steps: fc.array(validStep, { minLength: 1, maxLength: 8 }),
    },
    { requiredKeys: ["schemaVersion", "operationId", "target", "risk", "steps"] },
  )
  .map((task) => {
    const out: Record<string, unknown> = { ...task };
    if (task.risk !== "read_only") out["approved"] = true;
    const typesSecret = task.steps.some((s) => s.action === "fill_secret");
    if (typesSecret) out["secretApproval"] = true;
    // A task that types a secret accepts only selectors that cannot match on text.
    const safe = (s: (typeof task.steps)[number]) =>
      typesSecret && "selector" in s && typeof s.selector === "string" && textMatchingConstruct(s.selector, s.action) !== null ? { ...s, selector: "#a" } : s;
    // A list named L owns the names "L.*": beside a list, names drop their dots so none falls under another.
    const hasList = task.steps.some((s) => "all" in s);
    const unique = (name: string, i: number) => `${hasList ? name.replaceAll(".", "-") : name}_${i}`;
    out["steps"] = task.steps.map((s, i) => ("name" in s ? { ...safe(s), name: unique(s.name, i) } : safe(s)));
    return out;
  });

// ---- mutations ---------------------------------------------------------------------------------

const ODD_KEYS = ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "script", "eval", "command", "js", "", "a/b", "~0", ...ACTIONS];
const ALL_FIELD_NAMES = [...new Set(["action", "timeoutMs", ...Object.values(STEP_FIELDS).flat()])];
const oddKey = fc.oneof(fc.constantFrom(...ODD_KEYS, ...ALL_FIELD_NAMES), fc.string({ maxLength: 8 }));
/** Any UTF-16 code unit, so unpaired surrogate halves (which JSON "\\ud800" escapes can carry) appear too. */
const anyCodeUnits = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 6 });
const oddValue = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  anyCodeUnits,
  fc.constantFrom("value", " VALUE\u3000", "javascript:alert(1)", "data:,x", "0x7f.1", "*.com", "#password", "hunter2", "", "x".repeat(2049)),
  fc.constantFrom("\ud800", "a\udc00", "\ud83d\ude02", "https://example.com/\ud800", "ex\udfffample.com", 1e308 * 10, -0, 1.5),
);

type Mutation =
  | { kind: "replace"; at: number; value: unknown }
  | { kind: "delete"; at: number }
  | { kind: "add"; at: number; key: string; value: unknown }
  | { kind: "step"; at: number; entries: Array<[string, unknown]> };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant("replace" as const), at: fc.nat(), value: oddValue }),
  fc.record({ kind: fc.constant("delete" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("add" as const), at: fc.nat(), key: oddKey, value: oddValue }),
  fc.record({
    kind: fc.constant("step" as const),
    at: fc.nat(),
    entries: fc.array(fc.tuple(fc.oneof(fc.constantFrom(...ALL_FIELD_NAMES), oddKey), fc.oneof(fc.constantFrom(...ACTIONS, "evaluate"), oddValue)), {
      maxLength: 6,
    }),
  }),
);

type Slot = { container: Record<string, unknown> | unknown[]; key: string | number };

/** Every (container, key) position in a JSON value, in a stable order. */
function slotsOf(value: unknown, into: Slot[] = []): Slot[] {
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      into.push({ container: value, key: index });
      slotsOf(item, into);
    });
  } else if (typeof value === "object" && value !== null) {
    const object = value as Record<string, unknown>;
    for (const key of Object.keys(object)) {
      into.push({ container: object, key });
      slotsOf(object[key], into);
    }
  }
  return into;
}

function objectsOf(value: unknown): Array<Record<string, unknown>> {
  const found: Array<Record<string, unknown>> = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === "object" && v !== null) {
      found.push(v as Record<string, unknown>);
      Object.values(v).forEach(walk);
    }
  };
  walk(value);
  return found;
}

function applyMutation(task: Record<string, unknown>, m: Mutation): unknown {
  const copy = structuredClone(task);
  switch (m.kind) {
    case "replace": {
      const slots = slotsOf(copy);
      const slot = slots[m.at % slots.length]!;
      if (Array.isArray(slot.container)) slot.container[slot.key as number] = m.value;
      else withOwnKey(slot.container, slot.key as string, m.value);
      return copy;
    }
    case "delete": {
      const slots = slotsOf(copy);
      const slot = slots[m.at % slots.length]!;
      if (Array.isArray(slot.container)) slot.container.splice(slot.key as number, 1);
      else delete slot.container[slot.key as string];
      return copy;
    }
    case "add": {
      const objects = objectsOf(copy);
      withOwnKey(objects[m.at % objects.length]!, m.key, m.value);
      return copy;
    }
    case "step": {
      const steps = copy["steps"];
      if (!Array.isArray(steps)) return copy; // an earlier mutation replaced the list itself
      const step = {};
      for (const [key, value] of m.entries) withOwnKey(step, key, value);
      if (steps.length === 0) steps.push(step);
      else steps[m.at % steps.length] = step;
      return copy;
    }
  }
}

// ---- properties --------------------------------------------------------------------------------

describe("validateTask fuzz", () => {
  test("never throws on arbitrary JSON, and every refusal is coded and points into the input", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        validateAndCheck(value);
      }),
      propertyRuns(3000),
    );
  });

  test("never throws on arbitrary objects shaped like tasks at the top level", () => {
    const taskKey = fc.constantFrom(
      "schemaVersion",
      "operationId",
      "label",
      "target",
      "allowedHosts",
      "risk",
      "approved",
      "secretApproval",
      "evidenceRetention",
      "provider",
      "timeouts",
      "evidence",
      "steps",
      "__proto__",
      "constructor",
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(taskKey, fc.jsonValue({ maxDepth: 3 })), { maxLength: 12 }), (entries) => {
        const input = {};
        for (const [key, value] of entries) withOwnKey(input, key, value);
        validateAndCheck(input);
      }),
      propertyRuns(2000),
    );
  });

  test("never throws on near-valid tasks with one to three mutated fields (incl. __proto__/constructor keys)", () => {
    fc.assert(
      fc.property(validTask, fc.array(mutation, { minLength: 1, maxLength: 3 }), (task, mutations) => {
        const input = mutations.reduce<unknown>((current, m) => applyMutation(current as Record<string, unknown>, m), task);
        validateAndCheck(input);
        // The same document read from text (JSON.parse makes __proto__ an own key) gives the same answer.
        const text = JSON.stringify(input);
        assert.deepEqual(parseTaskText(text), validateTask(JSON.parse(text)));
      }),
      propertyRuns(4000),
    );
  });

  test("parseTaskText never throws on arbitrary text, including truncated and corrupted tasks", () => {
    const corrupted = fc.tuple(validTask, fc.nat(), fc.string({ maxLength: 3 })).map(([task, cut, junk]) => {
      const text = JSON.stringify(task);
      const at = cut % (text.length + 1);
      return text.slice(0, at) + junk + text.slice(at + junk.length);
    });
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: "binary", maxLength: 60 }), corrupted), (text) => {
        const result = parseTaskText(text);
        if (!result.ok) for (const problem of result.errors) assert.ok(Object.hasOwn(ERROR_CODES, problem.code));
      }),
      propertyRuns(2000),
    );
  });

  test("near-valid generator mostly produces valid tasks, and normalization is idempotent on them", () => {
    let valid = 0;
    let runs = 0;
    fc.assert(
      fc.property(validTask, (task) => {
        runs += 1;
        const first = validateAndCheck(task);
        if (!first.ok) return;
        valid += 1;
        const normalized: Task = first.value;
        const second = validateTask(structuredClone(normalized));
        assert.ok(second.ok, `the normalized task re-validates: ${JSON.stringify(second.ok ? [] : second.errors)}`);
        assert.deepEqual(second.value, normalized);
        assert.equal(canonicalJson(second.value), canonicalJson(normalized));
      }),
      propertyRuns(2000),
    );
    assert.ok(valid / runs > 0.9, `only ${valid} of ${runs} generated tasks were valid; the generator drifted from the schema`);
  });
});
