import { pointer } from "./jsonPointer.js";
import { TASK_LIMITS } from "./limits.js";
import { normalizeHttpUrl } from "./normalizeHttpUrl.js";
import { looksLikeSecretField } from "./secretFieldSelector.js";
import { SECRET_NAME } from "./secretName.js";
import { clip, describeType, isJsonObject, wholeNumber } from "./fieldReader.js";
import type { FieldReader } from "./fieldReader.js";
import { CLICK_THEN, COUNT_MATCHES, PRESS_KEYS, TEXT_MATCHES, URL_MATCHES, WAIT_STATES } from "./taskTypes.js";
import type { Step, StepAction } from "./taskTypes.js";
import type { UploadStep } from "./taskTypes.js";
import { fileNameProblem } from "./fileName.js";
import { ARTIFACT_DOWNLOAD_COUNT } from "./limits.js";

/** The fields each action takes besides "action" and "timeoutMs". There is no script or command field. */
export const STEP_FIELDS: Record<StepAction, readonly string[]> = {
  goto: ["url"],
  wait_for: ["selector", "state", "url", "match"],
  click: ["selector", "then"],
  fill: ["selector", "value"],
  fill_secret: ["selector", "secret", "envVar"],
  type: ["selector", "text"],
  select: ["selector", "value"],
  press: ["key", "selector"],
  check: ["selector"],
  uncheck: ["selector"],
  upload: ["selector", "file"],
  extract_text: ["selector", "name", "all", "max"],
  extract_attribute: ["selector", "attribute", "name"],
  expect_text: ["text", "selector", "match"],
  expect_url: ["url", "match"],
  expect_count: ["selector", "count", "match"],
};

export const STEP_ACTIONS = Object.keys(STEP_FIELDS) as StepAction[];

/**
 * The actions whose selector may look inside an iframe named by "frame". fill_secret is not one:
 * a secret's site binding is the owner's word about the pages of those origins, and a field in an
 * iframe sits in a page another site composes (which frame, at what address, what surrounds it);
 * errand types a secret only into a field of the page itself rather than stretch the binding to
 * frames (docs/TASK_SCHEMA.md "frame"). Fail closed: the executor's own checks stay behind this.
 */
export const FRAME_ACTIONS: ReadonlySet<StepAction> = new Set(
  STEP_ACTIONS.filter((action) => STEP_FIELDS[action].includes("selector") && action !== "fill_secret"),
);

/**
 * Playwright's internal:control engine (its one use is enter-frame, what frameLocator writes): a
 * selector could cross into an iframe with it, past the "frame" field's check that the frame is on
 * a task host. Matched loosely (case, spaces) so no spelling slips through.
 */
const INTERNAL_ENGINE = /internal\s*:\s*control/i;

export const OUTPUT_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;
// Control characters are exactly what this class excludes.
// eslint-disable-next-line no-control-regex
const ATTRIBUTE_NAME = /^[^\s"'>/=\u0000-\u001f]+$/;

/** Reads one step; returns undefined (with problems recorded) when it is not valid. */
export function readStep(reader: FieldReader, raw: unknown, path: string): Step | undefined {
  if (!isJsonObject(raw)) {
    reader.report("invalid_type", path, `Each step must be an object, not ${describeType(raw)}.`);
    return undefined;
  }
  const actionPath = pointer(path, "action");
  if (!Object.hasOwn(raw, "action")) {
    reader.report("missing_field", actionPath, `A step needs "action": one of ${STEP_ACTIONS.join(", ")}.`);
    return undefined;
  }
  const action = raw["action"];
  if (typeof action !== "string" || !Object.hasOwn(STEP_FIELDS, action)) {
    const shown = typeof action === "string" ? `"${clip(action)}"` : describeType(action);
    reader.report("unknown_action", actionPath, `Action ${shown} does not exist; use one of ${STEP_ACTIONS.join(", ")}. errand runs no JavaScript or shell.`);
    return undefined;
  }
  const kind = action as StepAction;
  const before = reader.problems.length;
  const secretIntoFrame = kind === "fill_secret" && Object.hasOwn(raw, "frame");
  if (secretIntoFrame)
    reader.report(
      "unknown_field",
      pointer(path, "frame"),
      `fill_secret takes no "frame": errand types a secret only into a field of the page itself, never inside an iframe, whatever its origin.`,
    );
  reader.rejectUnknownKeys(
    raw,
    ["action", "timeoutMs", ...STEP_FIELDS[kind], ...(FRAME_ACTIONS.has(kind) || secretIntoFrame ? ["frame"] : [])],
    path,
    `A ${kind} step`,
  );
  const timeoutMs = reader.integer(raw, "timeoutMs", path, TASK_LIMITS.stepTimeoutMs);
  const step = readActionFields(reader, raw, path, kind);
  const frame = FRAME_ACTIONS.has(kind) ? readFrame(reader, raw, path) : undefined;
  if (step === undefined || reader.problems.length > before) return undefined;
  if (timeoutMs !== undefined) step.timeoutMs = timeoutMs;
  if (frame !== undefined) step.frame = frame;
  return step;
}

/** An upload's file: a name the owner added (never a path), or {"download": N}, an earlier download of the attempt. */
function readUploadFile(reader: FieldReader, raw: Record<string, unknown>, path: string): UploadStep["file"] | undefined {
  const at = pointer(path, "file");
  if (!Object.hasOwn(raw, "file")) {
    reader.report(
      "missing_field",
      at,
      `"file" is required: the name of a file the owner added (errand file add NAME PATH), or {"download": N} for the Nth download (from 0) of an earlier step.`,
    );
    return undefined;
  }
  const value = raw["file"];
  if (typeof value === "string") {
    const problem = fileNameProblem(value);
    if (problem === null) return value;
    reader.report("invalid_file_name", at, `"file" ${problem}; it names a file the owner added on the errand host (errand file list), never a path.`);
    return undefined;
  }
  if (isJsonObject(value)) {
    reader.rejectUnknownKeys(value, ["download"], at, `An upload's "file" object`);
    if (!Object.hasOwn(value, "download")) {
      reader.report("missing_field", pointer(at, "download"), `"download" is required: the number (from 0) of an earlier download of this attempt.`);
      return undefined;
    }
    const download = value["download"];
    if (typeof download !== "number" || !Number.isInteger(download) || download < 0 || download >= ARTIFACT_DOWNLOAD_COUNT) {
      reader.report(
        "invalid_number",
        pointer(at, "download"),
        `"download" must be a whole number from 0 to ${ARTIFACT_DOWNLOAD_COUNT - 1}: which download of this attempt, in the order they started (receipt artifacts[].download).`,
      );
      return undefined;
    }
    return { download: wholeNumber(download) };
  }
  reader.report("invalid_type", at, `"file" must be a file name (a string) or {"download": N}, not ${describeType(value)}.`);
  return undefined;
}

/** At most this many iframes, outermost first, lead to a step's element. */
export const FRAME_DEPTH = 3;

/**
 * "frame": the iframe a step's selector looks in, as a selector, or a list of them for nested
 * frames (outermost first). Both spellings normalize to the list; an absent frame stays absent, so
 * a step without one normalizes (and digests) as before. It needs "selector" on the step.
 */
function readFrame(reader: FieldReader, raw: Record<string, unknown>, path: string): string[] | undefined {
  if (!Object.hasOwn(raw, "frame")) return undefined;
  const framePath = pointer(path, "frame");
  const value = raw["frame"];
  if (!Object.hasOwn(raw, "selector")) {
    reader.report("missing_field", pointer(path, "selector"), `"frame" names the iframe a "selector" looks in; give the element's "selector" too.`);
    return undefined;
  }
  const list = typeof value === "string" ? [value] : value;
  if (!Array.isArray(list)) {
    reader.report(
      "invalid_type",
      framePath,
      `"frame" must be the iframe's selector (a string) or a list of at most ${FRAME_DEPTH} selectors for nested frames, not ${describeType(value)}.`,
    );
    return undefined;
  }
  if (list.length === 0 || list.length > FRAME_DEPTH) {
    reader.report(list.length === 0 ? "too_short" : "too_many", framePath, `"frame" lists 1 to ${FRAME_DEPTH} iframe selectors, outermost first.`);
    return undefined;
  }
  const frames: string[] = [];
  list.forEach((item: unknown, at: number) => {
    const itemPath = typeof value === "string" ? framePath : pointer(framePath, String(at));
    if (typeof item !== "string") {
      reader.report("invalid_type", itemPath, `Each frame must be an iframe's selector (a string), not ${describeType(item)}.`);
      return;
    }
    if (item.length < 1 || item.length > TASK_LIMITS.selectorChars) {
      reader.report(item.length < 1 ? "too_short" : "too_long", itemPath, `A frame's selector has 1 to ${TASK_LIMITS.selectorChars} characters.`);
      return;
    }
    if (refuseInternalEngine(reader, item, itemPath)) frames.push(item);
  });
  return frames.length === list.length ? frames : undefined;
}

/** Records a problem and returns false when a selector uses internal:control (enter-frame). */
function refuseInternalEngine(reader: FieldReader, selector: string, path: string): boolean {
  if (!INTERNAL_ENGINE.test(selector)) return true;
  reader.report(
    "internal_selector_engine",
    path,
    `Selectors may not use Playwright's internal:control engine (internal:control=enter-frame enters a frame unchecked); name the iframe in "frame" instead, and errand checks it is on one of the task's hosts.`,
  );
  return false;
}

function readActionFields(reader: FieldReader, raw: Record<string, unknown>, path: string, action: StepAction): Step | undefined {
  const selector = (required: boolean): string | undefined => {
    const value = reader.string(raw, "selector", path, { min: 1, max: TASK_LIMITS.selectorChars, required });
    return value === undefined || refuseInternalEngine(reader, value, pointer(path, "selector")) ? value : undefined;
  };
  const text = (key: string, min: number): string | undefined => reader.string(raw, key, path, { min, max: TASK_LIMITS.textChars, required: true });
  const url = (): string | undefined => {
    const value = reader.string(raw, "url", path, { min: 1, max: Number.MAX_SAFE_INTEGER, required: true });
    if (value === undefined) return undefined;
    const checked = normalizeHttpUrl(value, pointer(path, "url"));
    if (!checked.ok) {
      reader.problems.push(checked.problem);
      return undefined;
    }
    return checked.href;
  };
  const outputName = (): string | undefined => {
    const value = reader.string(raw, "name", path, { min: 1, max: 64, required: true });
    if (value !== undefined && !OUTPUT_NAME.test(value)) {
      reader.report(
        "invalid_output_name",
        pointer(path, "name"),
        `"name" must start with a letter or "_" and hold only letters, digits, "_", "." or "-" (at most 64).`,
      );
      return undefined;
    }
    return value;
  };
  const refuseLiteralSecret = (field: string, s: string | undefined): void => {
    if (s !== undefined && looksLikeSecretField(s)) {
      reader.report(
        "use_fill_secret",
        pointer(path, field),
        `This ${action} step targets what looks like a password, secret, token or one-time-code field; use {"action":"fill_secret","selector":...,"secret":"NAME"} with a secret the owner declared, so the value never enters the task.`,
      );
    }
  };

  switch (action) {
    case "upload": {
      const s = selector(true);
      const file = readUploadFile(reader, raw, path);
      return s === undefined || file === undefined ? undefined : { action, selector: s, file };
    }
    case "goto": {
      const u = url();
      return u === undefined ? undefined : { action, url: u };
    }
    case "click": {
      const s = selector(true);
      if (!Object.hasOwn(raw, "then")) return s === undefined ? undefined : { action, selector: s };
      const then = reader.choice(raw, "then", path, CLICK_THEN);
      return s === undefined || then === undefined ? undefined : { action, selector: s, then };
    }
    case "wait_for":
      return readWaitFor(reader, raw, path, { selector: () => selector(true), url });
    case "check":
    case "uncheck": {
      const s = selector(true);
      return s === undefined ? undefined : { action, selector: s };
    }
    case "fill":
    case "select": {
      const s = selector(true);
      const value = text("value", 0);
      if (action === "fill") refuseLiteralSecret("selector", s);
      return s === undefined || value === undefined ? undefined : { action, selector: s, value };
    }
    case "type": {
      const s = selector(true);
      const t = text("text", 1);
      refuseLiteralSecret("selector", s);
      return s === undefined || t === undefined ? undefined : { action, selector: s, text: t };
    }
    case "fill_secret": {
      const s = selector(true);
      const name = readSecretName(reader, raw, path);
      return s === undefined || name === undefined ? undefined : { action, selector: s, secret: name };
    }
    case "press": {
      const key = reader.choice(raw, "key", path, PRESS_KEYS);
      const s = selector(false);
      if (key === undefined) return undefined;
      return s === undefined ? { action, key } : { action, key, selector: s };
    }
    case "extract_text": {
      const s = selector(true);
      const name = outputName();
      const list = readListBounds(reader, raw, path, name);
      if (s === undefined || name === undefined || list === undefined) return undefined;
      return { action, selector: s, name, ...list };
    }
    case "extract_attribute": {
      const s = selector(true);
      const name = outputName();
      const attribute = readAttribute(reader, raw, path);
      return s === undefined || name === undefined || attribute === undefined ? undefined : { action, selector: s, attribute, name };
    }
    case "expect_text": {
      const t = text("text", 1);
      const s = selector(false);
      const match = reader.choice(raw, "match", path, TEXT_MATCHES, "contains");
      if (t === undefined || match === undefined) return undefined;
      return s === undefined ? { action, text: t, match } : { action, text: t, selector: s, match };
    }
    case "expect_url": {
      const u = url();
      const match = reader.choice(raw, "match", path, URL_MATCHES, "exact");
      return u === undefined || match === undefined ? undefined : { action, url: u, match };
    }
    case "expect_count": {
      const s = selector(true);
      const count = reader.integer(raw, "count", path, { min: 0, max: TASK_LIMITS.expectCountMax }, "elements");
      if (!Object.hasOwn(raw, "count"))
        reader.report("missing_field", pointer(path, "count"), `"count" is required: how many elements should match (0 to ${TASK_LIMITS.expectCountMax}).`);
      const match = reader.choice(raw, "match", path, COUNT_MATCHES, "exact");
      return s === undefined || count === undefined || match === undefined ? undefined : { action, selector: s, count, match };
    }
  }
}

/**
 * wait_for waits on an element (selector, with state) or on the page's address (url, with match):
 * exactly one of the two, and only the fields of that one. state "visible" is the default and
 * normalizes away, so a wait_for written before state existed keeps its digest.
 */
function readWaitFor(
  reader: FieldReader,
  raw: Record<string, unknown>,
  path: string,
  read: { selector: () => string | undefined; url: () => string | undefined },
): Step | undefined {
  const hasSelector = Object.hasOwn(raw, "selector");
  if (hasSelector && Object.hasOwn(raw, "url")) {
    reader.report("conflicting_fields", pointer(path, "url"), `A wait_for waits for an element ("selector") or for an address ("url"), not both.`);
    return undefined;
  }
  if (Object.hasOwn(raw, "url")) {
    if (Object.hasOwn(raw, "state"))
      reader.report(
        "conflicting_fields",
        pointer(path, "state"),
        `"state" is for waiting on an element ("selector"); with "url" use "match": exact or prefix.`,
      );
    const u = read.url();
    const match = reader.choice(raw, "match", path, URL_MATCHES, "exact");
    return u === undefined || match === undefined ? undefined : { action: "wait_for", url: u, match };
  }
  if (!hasSelector) {
    reader.report("missing_field", pointer(path, "selector"), `A wait_for needs "selector" (an element to wait for) or "url" (an address to wait for).`);
    return undefined;
  }
  if (Object.hasOwn(raw, "match"))
    reader.report(
      "conflicting_fields",
      pointer(path, "match"),
      `"match" is for waiting on an address ("url"); with "selector" use "state": ${WAIT_STATES.join(", ")}.`,
    );
  const s = read.selector();
  const state = reader.choice(raw, "state", path, WAIT_STATES, "visible");
  if (s === undefined || state === undefined) return undefined;
  return state === "visible" ? { action: "wait_for", selector: s } : { action: "wait_for", selector: s, state };
}

/** A list's numbered outputs ("name.001") must still be output names, so a list's name leaves room for the number. */
export const LIST_NAME_CHARS = 60;

/**
 * extract_text's optional list fields: "all": true reads every match, "max" (only with all) bounds
 * how many. Absent fields stay absent, so a single extract_text normalizes (and digests) as before.
 */
function readListBounds(reader: FieldReader, raw: Record<string, unknown>, path: string, name: string | undefined): { all?: true; max?: number } | undefined {
  const all = reader.boolean(raw, "all", path, false);
  const max = reader.integer(raw, "max", path, { min: 1, max: TASK_LIMITS.listItems.max }, "texts");
  if (Object.hasOwn(raw, "max") && !all) {
    reader.report("missing_field", pointer(path, "all"), `"max" bounds a list: it needs "all": true.`);
    return undefined;
  }
  if (all && name !== undefined && name.length > LIST_NAME_CHARS) {
    reader.report(
      "invalid_output_name",
      pointer(path, "name"),
      `With "all": true, "name" may have at most ${LIST_NAME_CHARS} characters: each text is output as name.001, name.002, ...`,
    );
    return undefined;
  }
  if (!all) return {};
  return max === undefined ? { all: true } : { all: true, max };
}

/**
 * fill_secret names a secret the owner declared: "secret", or "envVar" as another spelling of the
 * same lookup (kept from the seed schema; it never reads the process environment). Exactly one of
 * the two; both normalize to "secret", so the two spellings of one task digest equally.
 */
function readSecretName(reader: FieldReader, raw: Record<string, unknown>, path: string): string | undefined {
  const hasSecret = Object.hasOwn(raw, "secret");
  const hasEnvVar = Object.hasOwn(raw, "envVar");
  if (hasSecret && hasEnvVar) {
    reader.report(
      "conflicting_fields",
      pointer(path, "envVar"),
      `Give "secret" or "envVar", not both: they are two spellings of the same declared secret's name.`,
    );
    return undefined;
  }
  if (!hasSecret && !hasEnvVar) {
    reader.report(
      "missing_field",
      pointer(path, "secret"),
      `A fill_secret step needs "secret": the name of a secret the owner declared with errand secret set (never the value).`,
    );
    return undefined;
  }
  const field = hasSecret ? "secret" : "envVar";
  const name = reader.string(raw, field, path, { min: 1, max: 64, required: true });
  if (name !== undefined && !SECRET_NAME.test(name)) {
    reader.report(
      "invalid_secret_name",
      pointer(path, field),
      `"${field}" must be the name of a declared secret (a letter, then letters, digits or "_", at most 64), never the secret itself.`,
    );
    return undefined;
  }
  return name;
}

/** Attribute names are case-insensitive in HTML, so they are trimmed and lowercased. "value" is never readable. */
function readAttribute(reader: FieldReader, raw: Record<string, unknown>, path: string): string | undefined {
  const value = reader.string(raw, "attribute", path, { min: 1, max: TASK_LIMITS.attributeChars, required: true });
  if (value === undefined) return undefined;
  const name = value.trim().toLowerCase();
  const attributePath = pointer(path, "attribute");
  if (name === "value") {
    reader.report(
      "value_attribute_forbidden",
      attributePath,
      `extract_attribute may not read "value": after a fill it could hand back what was typed. Use extract_text on visible text instead.`,
    );
    return undefined;
  }
  if (!ATTRIBUTE_NAME.test(name)) {
    reader.report("invalid_attribute", attributePath, `"attribute" must be an attribute name such as "title" or "href".`);
    return undefined;
  }
  return name;
}
