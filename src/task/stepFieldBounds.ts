import { TASK_LIMITS } from "./limits.js";
import { FRAME_ACTIONS, FRAME_DEPTH, OUTPUT_NAME, STEP_FIELDS } from "./readStep.js";
import { SECRET_NAME } from "./secretName.js";
import { PRESS_KEYS, TEXT_MATCHES, URL_MATCHES } from "./taskTypes.js";
import type { StepAction } from "./taskTypes.js";

/** What the validator holds one step field to: a length, a pattern, a closed set, a range. */
export type FieldBounds = {
  maxChars?: number;
  pattern?: string;
  oneOf?: readonly string[];
  min?: number;
  max?: number;
  /** A field that may also be a list of values (each within the bounds above): at most this many. */
  maxItems?: number;
  /** A URL field: absolute http(s), checked and normalized by normalizeHttpUrl. */
  httpUrl?: true;
};

/** Each field's bounds, by name, from the constants readStep enforces. */
const FIELD_BOUNDS: Record<string, FieldBounds> = {
  url: { maxChars: TASK_LIMITS.urlChars, httpUrl: true },
  selector: { maxChars: TASK_LIMITS.selectorChars },
  /** A selector or a list of at most FRAME_DEPTH of them; each one's length. */
  frame: { maxChars: TASK_LIMITS.selectorChars, maxItems: FRAME_DEPTH },
  value: { maxChars: TASK_LIMITS.textChars },
  text: { maxChars: TASK_LIMITS.textChars },
  secret: { pattern: SECRET_NAME.source },
  envVar: { pattern: SECRET_NAME.source },
  name: { pattern: OUTPUT_NAME.source },
  attribute: { maxChars: TASK_LIMITS.attributeChars },
  key: { oneOf: PRESS_KEYS },
  timeoutMs: { min: TASK_LIMITS.stepTimeoutMs.min, max: TASK_LIMITS.stepTimeoutMs.max },
};

/** Where one field's bounds depend on the action. */
const ACTION_FIELD_BOUNDS: Partial<Record<StepAction, Record<string, FieldBounds>>> = {
  expect_text: { match: { oneOf: TEXT_MATCHES } },
  expect_url: { match: { oneOf: URL_MATCHES } },
};

export interface StepActionFields {
  action: StepAction;
  /** The fields the action takes (every action also takes timeoutMs), each with the bounds known for it. */
  fields: ({ name: string } & FieldBounds)[];
}

/**
 * Every step action the validator accepts, with its fields and their bounds: read from the
 * validator's own action set (STEP_FIELDS), so an action added there is listed here with no second
 * edit. A field this table does not know yet is listed by name alone, never with a bound it does not
 * have. The capabilities answers (REST and MCP) carry this list.
 */
export function stepActionFields(): StepActionFields[] {
  return (Object.keys(STEP_FIELDS) as StepAction[]).map((action) => ({
    action,
    fields: [...STEP_FIELDS[action], ...(FRAME_ACTIONS.has(action) ? ["frame"] : []), "timeoutMs"].map((name) => ({
      name,
      ...(ACTION_FIELD_BOUNDS[action]?.[name] ?? FIELD_BOUNDS[name]),
    })),
  }));
}
