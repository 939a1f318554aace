/** The normalized shape of a task (schema errand.task.v1). Every default is filled in. */

export const RISK_LEVELS = ["read_only", "reversible_write", "consequential"] as const;
export type Risk = (typeof RISK_LEVELS)[number];

export const PROVIDER_NAMES = ["auto", "local", "kernel", "browserless", "browserbase", "steel"] as const;
export type ProviderChoice = (typeof PROVIDER_NAMES)[number];

export const RETENTION_LEVELS = ["minimal", "full"] as const;
export type EvidenceRetention = (typeof RETENTION_LEVELS)[number];

/** When the executor takes a viewport screenshot as evidence: never (default), only when the attempt failed, or at its end. */
export const SCREENSHOT_MODES = ["none", "on_failure", "final"] as const;
export type ScreenshotMode = (typeof SCREENSHOT_MODES)[number];

export const TEXT_MATCHES = ["contains", "exact"] as const;
export const URL_MATCHES = ["exact", "prefix"] as const;
export const COUNT_MATCHES = ["exact", "at_least"] as const;
/** What a click may go on to: continue in the new tab it opens. */
export const CLICK_THEN = ["follow_new_tab"] as const;
/** The keys a press step may name: a closed set, so no key chord or text reaches the page this way. */
export const PRESS_KEYS = [
  "Enter",
  "Tab",
  "Escape",
  "Backspace",
  "Delete",
  "Space",
  "ArrowUp",
  "ArrowDown",
  "ArrowLeft",
  "ArrowRight",
  "Home",
  "End",
  "PageUp",
  "PageDown",
] as const;

interface StepBase {
  /** Per-step timeout in milliseconds; the executor's default applies when absent. */
  timeoutMs?: number;
  /**
   * The iframe the step's selector looks in, as selectors outermost first (nested frames); only on
   * steps with a selector. Each frame must be on one of the task's hosts when the step runs.
   */
  frame?: string[];
}
export interface GotoStep extends StepBase {
  action: "goto";
  url: string;
}
/** How wait_for waits on an element: shown (the default, absent when normalized), hidden or gone, in the document or gone from it. */
export const WAIT_STATES = ["visible", "hidden", "attached", "detached"] as const;
/**
 * Waits for the element matching `selector` to reach `state` (visible when absent), or, with `url`
 * instead, for the page to be at that URL (`match` exact or prefix).
 */
export type WaitForStep = StepBase & { action: "wait_for" } & (
    { selector: string; state?: Exclude<(typeof WAIT_STATES)[number], "visible"> } | { url: string; match: (typeof URL_MATCHES)[number] }
  );
/** Clicks; with then "follow_new_tab" the steps after it run in the one new tab the click opens on a task host. */
export interface ClickStep extends StepBase {
  action: "click";
  selector: string;
  then?: (typeof CLICK_THEN)[number];
}
export interface FillStep extends StepBase {
  action: "fill";
  selector: string;
  value: string;
}
/** Types the value of the declared secret `secret` (the owner's registry), only into a frame whose origin the secret is bound to. */
export interface FillSecretStep extends StepBase {
  action: "fill_secret";
  selector: string;
  secret: string;
}
export interface TypeStep extends StepBase {
  action: "type";
  selector: string;
  text: string;
}
export interface SelectStep extends StepBase {
  action: "select";
  selector: string;
  value: string;
}
/** Presses one key, on the element matching `selector` (focused first) or else on whatever has focus. */
export interface PressStep extends StepBase {
  action: "press";
  key: (typeof PRESS_KEYS)[number];
  selector?: string;
}
/** Sets a checkbox or radio to checked (check) or unchecked (uncheck); nothing happens when it already is, and the state is read back after. */
export interface CheckStep extends StepBase {
  action: "check" | "uncheck";
  selector: string;
}
/** Sets a file input from a file the owner added (by name, never a path) or from an earlier download of the attempt. */
export interface UploadStep extends StepBase {
  action: "upload";
  selector: string;
  file: string | { download: number };
}
/**
 * Reads the visible text of the element matching `selector`; with `all`, of every match (at most
 * `max`, in document order), each into its own output `name.001`, `name.002`, ...
 */
export interface ExtractTextStep extends StepBase {
  action: "extract_text";
  selector: string;
  name: string;
  all?: true;
  max?: number;
}
export interface ExtractAttributeStep extends StepBase {
  action: "extract_attribute";
  selector: string;
  attribute: string;
  name: string;
}
export interface ExpectTextStep extends StepBase {
  action: "expect_text";
  text: string;
  selector?: string;
  match: (typeof TEXT_MATCHES)[number];
}
/** Checks how many elements match `selector`: exactly `count`, or at least `count`. */
export interface ExpectCountStep extends StepBase {
  action: "expect_count";
  selector: string;
  count: number;
  match: (typeof COUNT_MATCHES)[number];
}
export interface ExpectUrlStep extends StepBase {
  action: "expect_url";
  url: string;
  match: (typeof URL_MATCHES)[number];
}

export type Step =
  | GotoStep
  | WaitForStep
  | ClickStep
  | FillStep
  | FillSecretStep
  | TypeStep
  | SelectStep
  | PressStep
  | CheckStep
  | UploadStep
  | ExtractTextStep
  | ExtractAttributeStep
  | ExpectTextStep
  | ExpectUrlStep
  | ExpectCountStep;

export type StepAction = Step["action"];

export interface TaskTimeouts {
  taskMs?: number;
  stepMs?: number;
}

/**
 * Evidence the executor gathers beyond the receipt. Absent means screenshots "none": the default
 * normalizes away, so tasks written before this field digest exactly as they did.
 */
export interface TaskEvidence {
  screenshots: Exclude<ScreenshotMode, "none">;
}

export interface Task {
  schemaVersion: "errand.task.v1";
  operationId: string;
  label?: string;
  /** A site the owner set up (errand site add): the task starts in a browser holding that site's saved session. */
  site?: string;
  target: { url: string };
  allowedHosts: string[];
  risk: Risk;
  approved: boolean;
  secretApproval: boolean;
  evidenceRetention: EvidenceRetention;
  provider: ProviderChoice;
  timeouts?: TaskTimeouts;
  evidence?: TaskEvidence;
  steps: Step[];
}

/** Steps that check the page; PASS needs at least one of these and all must hold. */
export function isExpectation(step: Step): step is ExpectTextStep | ExpectUrlStep | ExpectCountStep {
  return step.action === "expect_text" || step.action === "expect_url" || step.action === "expect_count";
}
