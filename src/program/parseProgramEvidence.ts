import type { Step } from "../task/taskTypes.js";
import { isExpectation } from "../task/taskTypes.js";
import type { ProgramCheck, ProgramEvidence, ProgramParams } from "./programTypes.js";

/** The failure codes a program reports (browserlessTemplates' StepFailure codes and failWith's). */
export const PROGRAM_FAILURE_CODES = [
  "navigation_blocked",
  "step_failed",
  "expectation_failed",
  "timeout",
  "task_timeout",
  "internal_error",
  "value_attribute_forbidden",
] as const;
const BLOCK_CODES = ["host_not_allowed", "method_blocked"] as const;
/** Above any count a real program reaches; a larger number is not a program's. */
const COUNT_MAX = 1_000_000_000;
/** How long past the task's budget a program's own clock may run (its last step's cleanup, the answer). */
const DURATION_SLACK_MS = 60_000;

export type EvidenceResult = { ok: true; value: ProgramEvidence } | { ok: false; path: string; message: string };

class Malformed extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Accepts what a provider answered for a program only when it is exactly evidence that program
 * could have produced for this task: every field present, typed and within the bound the program
 * cuts to, no field more, the steps in the task's order with their own actions, at most one failed
 * step and nothing run after it, each check tied to one of the task's expectations with the
 * expectation's own values, outputs only under the task's output names, and no write let through in
 * a read_only task. Anything else (a program that was not errand's, a provider or a middlebox that
 * changed the answer) is refused with the path of the first field that breaks the schema: errand
 * never reads a PASS out of an answer it cannot account for.
 */
export function parseProgramEvidence(value: unknown, params: ProgramParams): EvidenceResult {
  try {
    return { ok: true, value: readEvidence(value, params) };
  } catch (error) {
    if (error instanceof Malformed) return { ok: false, path: error.path, message: error.message };
    throw error;
  }
}

function readEvidence(value: unknown, params: ProgramParams): ProgramEvidence {
  const { limits } = params;
  const root = record(value, "", [
    "v",
    "status",
    "targetStatus",
    "steps",
    "checks",
    "failure",
    "outputs",
    "finalUrl",
    "blocked",
    "blockedCount",
    "popupsClosed",
    "requestsAllowed",
    "writesSent",
    "durationMs",
  ]);
  if (root["v"] !== 1) throw new Malformed("/v", "must be 1");
  const status = oneOf(root["status"], "/status", ["completed", "failed"] as const);
  const targetStatus = root["targetStatus"] === null ? null : integer(root["targetStatus"], "/targetStatus", 100, 599);
  const failure = readFailure(root["failure"], params, limits.messageChars);
  const steps = readSteps(root["steps"], params.steps, failure);
  if ((status === "completed") !== (failure === null)) throw new Malformed("/status", "must be completed exactly when failure is null");
  const checks = readChecks(root["checks"], params.steps, steps, failure, limits.observedChars);
  const outputs = readOutputs(root["outputs"], params, steps);
  const finalUrl = text(root["finalUrl"], "/finalUrl", limits.urlChars);
  const blocked = list(root["blocked"], "/blocked", limits.blockedEntries).map((entry, index) => {
    const path = `/blocked/${index}`;
    const item = record(entry, path, ["url", "method", "resourceType", "code"]);
    return {
      url: text(item["url"], `${path}/url`, limits.urlChars),
      method: text(item["method"], `${path}/method`, 16),
      resourceType: text(item["resourceType"], `${path}/resourceType`, 32),
      code: oneOf(item["code"], `${path}/code`, BLOCK_CODES),
    };
  });
  const blockedCount = integer(root["blockedCount"], "/blockedCount", blocked.length, COUNT_MAX);
  if (blocked.length < limits.blockedEntries && blockedCount !== blocked.length)
    throw new Malformed("/blockedCount", "must equal the blocked list's length while the list is not full");
  const writesSent = integer(root["writesSent"], "/writesSent", 0, COUNT_MAX);
  if (params.readOnly && writesSent !== 0) throw new Malformed("/writesSent", "must be 0 in a read_only task, whose program aborts every write");
  const requestsAllowed = integer(root["requestsAllowed"], "/requestsAllowed", writesSent, COUNT_MAX);
  return {
    v: 1,
    status,
    targetStatus,
    steps,
    checks,
    failure,
    outputs,
    finalUrl,
    blocked,
    blockedCount,
    popupsClosed: integer(root["popupsClosed"], "/popupsClosed", 0, COUNT_MAX),
    requestsAllowed,
    writesSent,
    durationMs: integer(root["durationMs"], "/durationMs", 0, params.taskMs + DURATION_SLACK_MS),
  };
}

function readFailure(value: unknown, params: ProgramParams, messageChars: number): ProgramEvidence["failure"] {
  if (value === null) return null;
  const item = record(value, "/failure", ["step", "code", "message"]);
  return {
    step: item["step"] === null ? null : integer(item["step"], "/failure/step", 0, params.steps.length - 1),
    code: oneOf(item["code"], "/failure/code", PROGRAM_FAILURE_CODES),
    message: text(item["message"], "/failure/message", messageChars),
  };
}

/** Passed steps, then the failed one (if a step failed), then skipped ones: one per task step, in order. */
function readSteps(value: unknown, taskSteps: readonly Step[], failure: ProgramEvidence["failure"]): ProgramEvidence["steps"] {
  const items = list(value, "/steps", taskSteps.length);
  if (items.length !== taskSteps.length) throw new Malformed("/steps", `must list each of the task's ${taskSteps.length} steps`);
  const failedAt = failure === null ? taskSteps.length : failure.step === null ? -1 : failure.step;
  return items.map((entry, index) => {
    const path = `/steps/${index}`;
    const item = record(entry, path, ["step", "action", "status"]);
    if (item["step"] !== index) throw new Malformed(`${path}/step`, `must be ${index}`);
    if (item["action"] !== taskSteps[index]?.action) throw new Malformed(`${path}/action`, "must be the task step's own action");
    const status = oneOf(item["status"], `${path}/status`, ["passed", "failed", "skipped"] as const);
    const wanted = index < failedAt ? "passed" : index === failedAt ? "failed" : "skipped";
    if (status !== wanted) throw new Malformed(`${path}/status`, `must be ${wanted}: steps run in order and stop at the failure`);
    return { step: index, action: taskSteps[index]?.action ?? "", status };
  });
}

/** One check per expectation that ran, with the expectation's own values; a passed expectation has a passed check. */
function readChecks(
  value: unknown,
  taskSteps: readonly Step[],
  steps: ProgramEvidence["steps"],
  failure: ProgramEvidence["failure"],
  observedChars: number,
): ProgramCheck[] {
  const items = list(value, "/checks", taskSteps.length);
  const seen = new Set<number>();
  const checks = items.map((entry, index) => {
    const path = `/checks/${index}`;
    const item = record(entry, path, ["step", "action", "expected", "match", "selector", "passed", "observed"], ["selector", "observed"]);
    const at = integer(item["step"], `${path}/step`, 0, taskSteps.length - 1);
    const step = taskSteps[at];
    if (step === undefined || !isExpectation(step)) throw new Malformed(`${path}/step`, "must name one of the task's expectations");
    if (seen.has(at)) throw new Malformed(`${path}/step`, "names an expectation already checked");
    seen.add(at);
    if (steps[at]?.status === "skipped") throw new Malformed(`${path}/step`, "names an expectation that did not run");
    const expected = step.action === "expect_text" ? step.text : step.action === "expect_url" ? step.url : String(step.count);
    if (item["action"] !== step.action) throw new Malformed(`${path}/action`, "must be the expectation's own action");
    if (item["expected"] !== expected) throw new Malformed(`${path}/expected`, "must be the expectation's own expected value");
    if (item["match"] !== step.match) throw new Malformed(`${path}/match`, "must be the expectation's own match");
    const selector = "selector" in step && typeof step.selector === "string" ? step.selector : undefined;
    if (item["selector"] !== selector) throw new Malformed(`${path}/selector`, "must be the expectation's own selector");
    if (typeof item["passed"] !== "boolean") throw new Malformed(`${path}/passed`, "must be true or false");
    const passed = item["passed"];
    if (passed !== (steps[at]?.status === "passed")) throw new Malformed(`${path}/passed`, "must agree with the step's status");
    if (passed && item["observed"] !== undefined) throw new Malformed(`${path}/observed`, "is only given for a check that did not hold");
    const observed = passed ? undefined : text(item["observed"], `${path}/observed`, observedChars);
    const check: ProgramCheck = {
      step: at,
      action: step.action,
      expected,
      match: step.match,
      passed,
      ...(selector === undefined ? {} : { selector }),
      ...(observed === undefined ? {} : { observed }),
    };
    return check;
  });
  for (const [index, step] of taskSteps.entries()) {
    if (isExpectation(step) && steps[index]?.status === "passed" && !seen.has(index))
      throw new Malformed("/checks", `must hold the check of step ${index}, which passed`);
  }
  if (failure?.code === "expectation_failed" && (failure.step === null || checks.every((check) => check.step !== failure.step || check.passed))) {
    throw new Malformed("/failure/code", "expectation_failed must come with the failed expectation's check");
  }
  return checks;
}

/** Outputs only under the names of extract steps that passed: name, or name.NNN and name.count for a list. */
function readOutputs(value: unknown, params: ProgramParams, steps: ProgramEvidence["steps"]): Record<string, string> {
  const { limits } = params;
  const allowed = new Map<string, number>();
  for (const [index, step] of params.steps.entries()) {
    if (steps[index]?.status !== "passed") continue;
    if (step.action === "extract_attribute") allowed.set(step.name, limits.valueChars);
    if (step.action !== "extract_text") continue;
    if (step.all !== true) {
      allowed.set(step.name, limits.valueChars);
      continue;
    }
    allowed.set(`${step.name}.count`, 10);
    const max = step.max ?? limits.listDefault;
    for (let at = 1; at <= max; at += 1) allowed.set(`${step.name}.${String(at).padStart(limits.listNameDigits, "0")}`, limits.listItemChars);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new Malformed("/outputs", "must be an object");
  const outputs: Record<string, string> = {};
  for (const [name, raw] of Object.entries(value)) {
    const cap = allowed.get(name);
    if (cap === undefined) throw new Malformed(`/outputs/${name.slice(0, 80)}`, "is not an output of a step that passed");
    const read = text(raw, `/outputs/${name}`, cap);
    if (name.endsWith(".count") && !/^\d{1,9}$/.test(read)) throw new Malformed(`/outputs/${name}`, "must be a count");
    outputs[name] = read;
  }
  return outputs;
}

function record(value: unknown, path: string, keys: readonly string[], optional: readonly string[] = []): Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new Malformed(path || "/", "must be an object");
  const item = value as Record<string, unknown>;
  for (const key of Object.keys(item)) if (!keys.includes(key)) throw new Malformed(`${path}/${key.slice(0, 80)}`, "is not a field of program evidence");
  for (const key of keys) if (!optional.includes(key) && !Object.hasOwn(item, key)) throw new Malformed(`${path}/${key}`, "is missing");
  return item;
}

function list(value: unknown, path: string, max: number): unknown[] {
  if (!Array.isArray(value)) throw new Malformed(path, "must be a list");
  if (value.length > max) throw new Malformed(path, `must hold at most ${max} entries`);
  return value;
}

function text(value: unknown, path: string, maxChars: number): string {
  if (typeof value !== "string") throw new Malformed(path, "must be a string");
  if (value.length > maxChars) throw new Malformed(path, `must be at most ${maxChars} characters`);
  return value;
}

function integer(value: unknown, path: string, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max)
    throw new Malformed(path, `must be a whole number from ${min} to ${max}`);
  return value;
}

function oneOf<T extends string>(value: unknown, path: string, allowed: readonly T[]): T {
  if (typeof value !== "string" || !(allowed as readonly string[]).includes(value)) throw new Malformed(path, `must be one of ${allowed.join(", ")}`);
  return value as T;
}
