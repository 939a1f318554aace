import type { Problem, Result } from "../errors/result.js";
import { failed, ok } from "../errors/result.js";
import { FieldReader, clip, describeType, isJsonObject } from "./fieldReader.js";
import { pointer } from "./jsonPointer.js";
import { SCHEMA_VERSION, TASK_LIMITS } from "./limits.js";
import { normalizeHostPattern } from "./normalizeHostPattern.js";
import { missingApprovals } from "./missingApprovals.js";
import type { MissingApproval } from "./missingApprovals.js";
import { normalizeHttpUrl } from "./normalizeHttpUrl.js";
import { readStep } from "./readStep.js";
import { isSiteName } from "./siteName.js";
import { PROVIDER_NAMES, RETENTION_LEVELS, RISK_LEVELS, SCREENSHOT_MODES } from "./taskTypes.js";
import type { Step, Task, TaskEvidence, TaskTimeouts } from "./taskTypes.js";
import { stepLabel } from "./stepLabel.js";
import { textMatchingConstruct } from "./textMatchingConstruct.js";

/** The fields a task may have, and no other (unknown_field). */
export const TASK_FIELDS = [
  "schemaVersion",
  "operationId",
  "label",
  "site",
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
] as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Codes that mean "well formed, but not approved" (missingApprovals' answers): a runner reports these as BLOCKED, not as bad input. */
export const POLICY_CODES: ReadonlySet<Problem["code"]> = new Set<MissingApproval>(["approval_required", "secret_approval_required"]);

/**
 * Validates untrusted JSON against task schema v1 and returns the normalized task, or every problem
 * found, each with a code and the JSON Pointer of the offending field. Never throws on any JSON value.
 */
export function validateTask(input: unknown): Result<Task> {
  const size = jsonByteLength(input);
  if (size > TASK_LIMITS.taskBytes) {
    return failed([{ code: "task_too_large", path: "", message: `The task is ${size} bytes; the limit is ${TASK_LIMITS.taskBytes} (256 KiB).` }]);
  }
  if (!isJsonObject(input)) {
    return failed([{ code: "invalid_type", path: "", message: `A task must be a JSON object, not ${describeType(input)}.` }]);
  }
  const reader = new FieldReader();
  reader.rejectUnknownKeys(input, TASK_FIELDS, "", "A task");

  readSchemaVersion(reader, input);
  const operationId = readOperationId(reader, input);
  const label = reader.string(input, "label", "", { max: TASK_LIMITS.labelChars, required: false });
  const site = readSite(reader, input);
  const targetUrl = readTarget(reader, input);
  const allowedHosts = readAllowedHosts(reader, input);
  const risk = reader.choice(input, "risk", "", RISK_LEVELS);
  const approved = reader.boolean(input, "approved", "", false);
  const secretApproval = reader.boolean(input, "secretApproval", "", false);
  const evidenceRetention = reader.choice(input, "evidenceRetention", "", RETENTION_LEVELS, "minimal");
  const provider = reader.choice(input, "provider", "", PROVIDER_NAMES, "auto");
  const timeouts = readTimeouts(reader, input);
  const evidence = readEvidence(reader, input);
  const steps = readSteps(reader, input);

  for (const missing of missingApprovals({ risk, approved, secretApproval, steps })) {
    if (missing === "approval_required")
      reader.report(
        "approval_required",
        "/approved",
        `A ${risk} task changes things on the site; it runs only with "approved": true, set after the person has agreed to it.`,
      );
    else
      reader.report(
        "secret_approval_required",
        "/secretApproval",
        `This task uses fill_secret; it runs only with "secretApproval": true, set after the person has agreed to let errand use that secret.`,
      );
  }

  if (reader.problems.length > 0) return failed(reader.problems);
  // Every required field was read successfully when no problem was recorded.
  const task: Task = {
    schemaVersion: SCHEMA_VERSION,
    operationId: operationId!,
    ...(label === undefined ? {} : { label }),
    ...(site === undefined ? {} : { site }),
    target: { url: targetUrl! },
    allowedHosts: allowedHosts ?? [],
    risk: risk!,
    approved,
    secretApproval,
    evidenceRetention: evidenceRetention!,
    provider: provider!,
    ...(timeouts === undefined ? {} : { timeouts }),
    ...(evidence === undefined ? {} : { evidence }),
    steps: steps!,
  };
  return ok(task);
}

function readSchemaVersion(reader: FieldReader, input: Record<string, unknown>): void {
  const value = reader.string(input, "schemaVersion", "", { max: 64, required: true });
  if (value !== undefined && value !== SCHEMA_VERSION) {
    reader.report("unsupported_schema_version", "/schemaVersion", `schemaVersion "${clip(value)}" is not supported; use "${SCHEMA_VERSION}".`);
  }
}

function readOperationId(reader: FieldReader, input: Record<string, unknown>): string | undefined {
  const value = reader.string(input, "operationId", "", { max: 64, required: true });
  if (value === undefined) return undefined;
  if (!UUID.test(value) || /^0{8}-0{4}-0{4}-0{4}-0{12}$/.test(value)) {
    reader.report(
      "invalid_operation_id",
      "/operationId",
      `"operationId" must be a UUID you choose and reuse on every retry (e.g. 3f0c6a52-6c1e-4a8e-9c39-2b1c1f1d4e55).`,
    );
    return undefined;
  }
  return value.toLowerCase();
}

/** The site whose saved session the task starts with; whether it exists is the owner's registry's question (admission). */
function readSite(reader: FieldReader, input: Record<string, unknown>): string | undefined {
  const value = reader.string(input, "site", "", { min: 1, max: 64, required: false });
  if (value === undefined) return undefined;
  if (!isSiteName(value)) {
    reader.report(
      "invalid_site",
      "/site",
      `"site" must name a site the owner set up with errand site add: a letter, then letters, digits, "_" or "-", at most 64 characters.`,
    );
    return undefined;
  }
  return value;
}

function readTarget(reader: FieldReader, input: Record<string, unknown>): string | undefined {
  const target = reader.object(input, "target", "", true);
  if (target === undefined) return undefined;
  reader.rejectUnknownKeys(target, ["url"], "/target", "target");
  const raw = reader.string(target, "url", "/target", { min: 1, max: Number.MAX_SAFE_INTEGER, required: true });
  if (raw === undefined) return undefined;
  const checked = normalizeHttpUrl(raw, "/target/url");
  if (!checked.ok) {
    reader.problems.push(checked.problem);
    return undefined;
  }
  return checked.href;
}

/** allowedHosts is a set: normalized, de-duplicated and sorted, so equal sets digest equally. */
function readAllowedHosts(reader: FieldReader, input: Record<string, unknown>): string[] | undefined {
  const list = reader.array(input, "allowedHosts", "", false);
  if (list === undefined) return undefined;
  if (list.length > TASK_LIMITS.maxAllowedHosts) {
    reader.report("too_many", "/allowedHosts", `allowedHosts has ${list.length} entries; the limit is ${TASK_LIMITS.maxAllowedHosts}.`);
    return undefined;
  }
  const patterns = new Set<string>();
  list.forEach((entry, index) => {
    const path = pointer("/allowedHosts", index);
    if (typeof entry !== "string") {
      reader.report("invalid_type", path, `Each allowedHosts entry must be a string, not ${describeType(entry)}.`);
      return;
    }
    if (entry.length > TASK_LIMITS.hostnameChars + 3) {
      reader.report("too_long", path, `This allowedHosts entry is ${entry.length} characters; a hostname has at most ${TASK_LIMITS.hostnameChars}.`);
      return;
    }
    const checked = normalizeHostPattern(entry, path);
    if (checked.ok) patterns.add(checked.pattern);
    else reader.problems.push(checked.problem);
  });
  return [...patterns].sort();
}

function readTimeouts(reader: FieldReader, input: Record<string, unknown>): TaskTimeouts | undefined {
  const timeouts = reader.object(input, "timeouts", "", false);
  if (timeouts === undefined) return undefined;
  reader.rejectUnknownKeys(timeouts, ["taskMs", "stepMs"], "/timeouts", "timeouts");
  const taskMs = reader.integer(timeouts, "taskMs", "/timeouts", TASK_LIMITS.taskTimeoutMs);
  const stepMs = reader.integer(timeouts, "stepMs", "/timeouts", TASK_LIMITS.stepTimeoutMs);
  const result: TaskTimeouts = {};
  if (taskMs !== undefined) result.taskMs = taskMs;
  if (stepMs !== undefined) result.stepMs = stepMs;
  // An empty object sets nothing, so it normalizes like an absent one (same meaning, same digest).
  return Object.keys(result).length === 0 ? undefined : result;
}

/** evidence: { screenshots }. "none" (the default) and an empty object normalize away, like an empty timeouts. */
function readEvidence(reader: FieldReader, input: Record<string, unknown>): TaskEvidence | undefined {
  const evidence = reader.object(input, "evidence", "", false);
  if (evidence === undefined) return undefined;
  reader.rejectUnknownKeys(evidence, ["screenshots"], "/evidence", "evidence");
  const screenshots = reader.choice(evidence, "screenshots", "/evidence", SCREENSHOT_MODES, "none");
  return screenshots === undefined || screenshots === "none" ? undefined : { screenshots };
}

function readSteps(reader: FieldReader, input: Record<string, unknown>): Step[] | undefined {
  const list = reader.array(input, "steps", "", true);
  if (list === undefined) return undefined;
  if (list.length < TASK_LIMITS.minSteps) {
    reader.report("too_short", "/steps", "A task needs at least one step.");
    return undefined;
  }
  if (list.length > TASK_LIMITS.maxSteps) {
    reader.report("too_many", "/steps", `The task has ${list.length} steps; the limit is ${TASK_LIMITS.maxSteps}.`);
    return undefined;
  }
  const steps: Step[] = [];
  const selectors: { selector: string; action: string; path: string }[] = [];
  const outputNames = new Map<string, { index: number; list: boolean }>();
  list.forEach((raw, index) => {
    const path = pointer("/steps", index);
    const step = readStep(reader, raw, path);
    if (step === undefined) return;
    if ("selector" in step && step.selector !== undefined) selectors.push({ selector: step.selector, action: step.action, path: pointer(path, "selector") });
    // A frame's selector finds its iframe the way a step's selector finds its element, so it is held
    // to the same rule; "frame" is not an acting step, so no literal-label exception applies to it.
    const spelledAsOne = typeof (raw as Record<string, unknown>)["frame"] === "string";
    step.frame?.forEach((selector, at) =>
      selectors.push({ selector, action: "frame", path: spelledAsOne ? pointer(path, "frame") : pointer(pointer(path, "frame"), String(at)) }),
    );
    if (step.action === "extract_text" || step.action === "extract_attribute") {
      const isList = step.action === "extract_text" && step.all === true;
      const same = outputNames.get(step.name)?.index;
      const clash = same ?? listNameClash(outputNames, step.name, isList);
      if (clash !== undefined) {
        const why = same === undefined ? ` (a list named L writes L.001, L.002, ...)` : "";
        reader.report(
          "duplicate_output_name",
          pointer(path, "name"),
          `Output name "${step.name}" is already used by ${stepLabel(clash)}${why}; give each extract step its own name.`,
        );
      }
      outputNames.set(step.name, { index, list: isList });
    }
    steps.push(step);
  });
  // Once a secret is typed, a selector that matches on text can read it back one character at a time.
  if (steps.some((step) => step.action === "fill_secret")) {
    for (const { selector, action, path } of selectors) {
      const construct = textMatchingConstruct(selector, action);
      if (construct === null) continue;
      reader.report(
        "text_selector_with_secret",
        path,
        `This task types a secret (fill_secret), so its selectors may not match on text or on part of an attribute, and this one uses ${construct}: which element it finds could reveal the typed value character by character. Use CSS by id, class, tag, whole attribute value or position (#search-results > li:nth-child(2), [name="q"]), or id=/data-testid=/nth=.`,
      );
    }
  }
  return steps;
}

/** Size of the value as UTF-8 JSON; values JSON cannot represent count as zero (they fail later as types). */
function jsonByteLength(value: unknown): number {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? 0 : new TextEncoder().encode(text).length;
  } catch {
    return 0;
  }
}

/**
 * The earlier step whose outputs a list's numbered outputs ("name.001") would overwrite, or that
 * would overwrite them: a list named L owns every output name starting with "L.".
 */
function listNameClash(earlier: ReadonlyMap<string, { index: number; list: boolean }>, name: string, list: boolean): number | undefined {
  for (const [other, seen] of earlier) {
    if ((list && other.startsWith(`${name}.`)) || (seen.list && name.startsWith(`${other}.`))) return seen.index;
  }
  return undefined;
}
