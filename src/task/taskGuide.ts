import { TASK_LIMITS, SCHEMA_VERSION } from "./limits.js";
import { FRAME_ACTIONS, FRAME_DEPTH, STEP_FIELDS } from "./readStep.js";
import { PROVIDER_NAMES, RETENTION_LEVELS, RISK_LEVELS, SCREENSHOT_MODES } from "./taskTypes.js";
import type { StepAction } from "./taskTypes.js";

/**
 * The task contract written for an assistant that must compose tasks: every field and action with
 * its bounds, the rules that get tasks refused, and examples that validate. Built from the same
 * constants validateTask enforces; test/task/taskGuide.test.ts checks that every action is here
 * and that every example validates.
 */
export interface TaskGuide {
  schemaVersion: string;
  summary: string;
  fields: { name: string; required: boolean; description: string }[];
  actions: { action: StepAction; fields: readonly string[]; changesSite: boolean; description: string }[];
  rules: string[];
  limits: typeof TASK_LIMITS;
  examples: { title: string; task: Record<string, unknown> }[];
}

const ACTION_TEXT: Record<StepAction, { changesSite: boolean; description: string }> = {
  goto: { changesSite: false, description: "Open url (the target's host or an allowedHosts match)." },
  wait_for: {
    changesSite: false,
    description:
      "Wait until an element matching selector reaches state: visible (default), hidden, attached or detached (gone); or, with url instead of selector, until the page is at url (match exact, the default, or prefix; on the task's hosts).",
  },
  click: {
    changesSite: true,
    description:
      'Click the element matching selector. A new tab it opens on a task host is followed when it is the only one; then: "follow_new_tab" waits for it and fails the step without one.',
  },
  fill: { changesSite: true, description: "Replace an input's content with value (never a password: use fill_secret)." },
  fill_secret: {
    changesSite: true,
    description:
      "Fill an input with the secret the owner declared under the name secret (envVar is accepted as another spelling), only where the field's frame is on a site the owner bound that secret to; needs secretApproval: true. For a TOTP secret it types the current one-time code. You never see or send the value.",
  },
  type: { changesSite: true, description: "Type text key by key into the element matching selector." },
  select: { changesSite: true, description: "Choose the option whose value (or label) is value in a <select>." },
  press: {
    changesSite: true,
    description:
      "Press one key (Enter, Tab, Escape, Backspace, Delete, Space, ArrowUp/Down/Left/Right, Home, End, PageUp, PageDown) on selector, or on the focused element without one; Enter can submit a form.",
  },
  check: { changesSite: true, description: "Tick the checkbox or radio matching selector (nothing if it already is); checked after." },
  uncheck: { changesSite: true, description: "Untick the checkbox matching selector (nothing if it already is); checked after." },
  upload: {
    changesSite: true,
    description:
      'Set the file input matching selector to file: a name the owner added (never a path), or {"download": N}, the Nth download (from 0) of an earlier step. A write.',
  },
  extract_text: {
    changesSite: false,
    description: `Read the element's visible text into output name (returned as untrusted page content). With all: true, read every match in page order (at most max, default ${TASK_LIMITS.listItems.default}, up to ${TASK_LIMITS.listItems.max}; each cut at ${TASK_LIMITS.listItemChars} characters) into name.001, name.002, ... and the number that matched into name.count.`,
  },
  extract_attribute: { changesSite: false, description: "Read attribute (never value) of the element into output name." },
  expect_text: {
    changesSite: false,
    description: "Check text is on the page (or in selector); match contains (default) or exact. PASS needs at least one expectation.",
  },
  expect_url: { changesSite: false, description: "Check the page URL; match exact (default) or prefix." },
  expect_count: {
    changesSite: false,
    description: `Check how many elements match selector: count (0 to ${TASK_LIMITS.expectCountMax}), match exact (default) or at_least; waits within the step's time for it to hold.`,
  },
};

export function taskGuide(): TaskGuide {
  return {
    schemaVersion: SCHEMA_VERSION,
    summary:
      "A task is one JSON object: open target.url, run steps in order, and check expectations. It is data, not a program: no JavaScript, no shell. The receipt is PASS only when at least one expect_* step exists and all hold.",
    fields: [
      { name: "schemaVersion", required: true, description: `Always "${SCHEMA_VERSION}".` },
      {
        name: "operationId",
        required: true,
        description: "A UUID you generate once per task and reuse only to retry the very same task (a changed task needs a new id).",
      },
      { name: "label", required: false, description: `Short text for people, at most ${TASK_LIMITS.labelChars} characters.` },
      { name: "target", required: true, description: `{ "url": "https://..." }: the first page (http or https, at most ${TASK_LIMITS.urlChars} characters).` },
      {
        name: "allowedHosts",
        required: false,
        description: `Other hosts the page may navigate to: "login.example.com" or "*.example.com"; at most ${TASK_LIMITS.maxAllowedHosts}.`,
      },
      { name: "risk", required: true, description: `${RISK_LEVELS.join(" | ")}: read_only only looks (GET requests only); writes change the site.` },
      {
        name: "approved",
        required: false,
        description: "true only after the person explicitly agreed to this write; required for reversible_write and consequential.",
      },
      {
        name: "secretApproval",
        required: false,
        description: "true only after the person agreed to let errand type a secret; required when any step is fill_secret.",
      },
      {
        name: "evidenceRetention",
        required: false,
        description: `${RETENTION_LEVELS.join(" | ")} (default minimal: extracted values are returned with the result for 10 minutes (ERRAND_RESULT_TTL), kept only encrypted meanwhile, and never in the durable receipt).`,
      },
      { name: "provider", required: false, description: `${PROVIDER_NAMES.join(" | ")} (default auto).` },
      {
        name: "timeouts",
        required: false,
        description: `{ "taskMs": ${TASK_LIMITS.taskTimeoutMs.min}..${TASK_LIMITS.taskTimeoutMs.max}, "stepMs": ${TASK_LIMITS.stepTimeoutMs.min}..${TASK_LIMITS.stepTimeoutMs.max} } in milliseconds.`,
      },
      {
        name: "evidence",
        required: false,
        description: `{ "screenshots": ${SCREENSHOT_MODES.map((m) => `"${m}"`).join(" | ")} } (default none): a viewport screenshot when the attempt failed (on_failure) or at its end (final), password fields masked (every field when the task typed a secret); the receipt lists its sha256 and size, errand_collect returns it as an image while the evidence is kept (evidenceRetention).`,
      },
      {
        name: "steps",
        required: true,
        description: `${TASK_LIMITS.minSteps} to ${TASK_LIMITS.maxSteps} step objects, each with "action" and optional "timeoutMs".`,
      },
    ],
    actions: (Object.keys(STEP_FIELDS) as StepAction[]).map((action) => ({
      action,
      fields: FRAME_ACTIONS.has(action) ? [...STEP_FIELDS[action], "frame"] : STEP_FIELDS[action],
      ...ACTION_TEXT[action],
    })),
    rules: [
      "Unknown fields are refused (unknown_field), never ignored.",
      'Selectors are Playwright selectors: CSS (#id, button.primary) or text=..., role=button[name="Save"]. In a task with fill_secret only CSS without text pseudo-classes or partial attribute matches (^= *= $=) is accepted, plus id=, data-testid=, nth=, visible=, and on click/fill/type/select/fill_secret one literal label alone (text=Sign in, role=button[name="Sign in"]; never as a frame); other text, XPath and role selectors there, frame selectors included, are text_selector_with_secret.',
      `frame (every step with a selector but fill_secret): the iframe's selector, or up to ${FRAME_DEPTH} for nested frames, outermost first; the step's selector then looks inside it. Each frame must be on the task's hosts (target or allowedHosts) when the step runs, else the step fails navigation_blocked and nothing in it is done. errand_look lists a page's frames with the frame to use. fill_secret takes no frame: a secret is typed only into a field of the page itself.`,
      "Private, loopback and metadata addresses are refused by the network policy; so are hosts outside target and allowedHosts (a goto to one is refused at submit: navigation_blocked).",
      "Never put a password in fill or type; use fill_secret with the name of a secret the owner declared for that site (errand secret set); an undeclared name (secret_unknown) or a secret bound to no origin the task reaches (secret_site_mismatch: a look-alike site) is refused at submit, before the owner is asked.",
      "Ask the person before setting approved or secretApproval to true; say what the task will change.",
      "Reuse an operationId only to retry the identical task; a different task under a used id is identity_mismatch.",
    ],
    limits: TASK_LIMITS,
    examples: [
      {
        title: "Read a value from a page (read_only)",
        task: {
          schemaVersion: SCHEMA_VERSION,
          operationId: "8c1f5e2a-3b7d-4c9e-a1f0-5d6e7f8a9b0c",
          label: "Opening hours",
          target: { url: "https://shop.example.com/" },
          risk: "read_only",
          steps: [
            { action: "click", selector: "a[href='/hours']" },
            { action: "expect_url", url: "https://shop.example.com/hours" },
            { action: "extract_text", selector: "#hours", name: "openingHours" },
            { action: "expect_text", text: "Monday", selector: "#hours" },
          ],
        },
      },
      {
        title: "Change something the person approved (reversible_write)",
        task: {
          schemaVersion: SCHEMA_VERSION,
          operationId: "2b3c4d5e-6f7a-4b2c-9d3e-4f5a6b7c8d9e",
          target: { url: "https://notes.example.com/new" },
          risk: "reversible_write",
          approved: true,
          steps: [
            { action: "fill", selector: "#title", value: "Groceries" },
            { action: "click", selector: "button[type=submit]" },
            { action: "expect_text", text: "Note saved" },
          ],
        },
      },
      {
        title: "Log in with a secret the owner keeps on the errand host (a login form POSTs, so it is a write)",
        task: {
          schemaVersion: SCHEMA_VERSION,
          operationId: "3c4d5e6f-7a8b-4c3d-8e4f-5a6b7c8d9e0f",
          target: { url: "https://portal.example.com/login" },
          allowedHosts: ["account.example.com"],
          risk: "reversible_write",
          approved: true,
          secretApproval: true,
          steps: [
            { action: "fill", selector: "#email", value: "ada@example.com" },
            { action: "fill_secret", selector: "#password", secret: "PORTAL_PASSWORD" },
            { action: "click", selector: "form#login button[type=submit]" },
            { action: "expect_url", url: "https://account.example.com/", match: "prefix" },
          ],
        },
      },
      {
        title: "Pay in a payment provider's iframe on another task host (frame)",
        task: {
          schemaVersion: SCHEMA_VERSION,
          operationId: "4d5e6f7a-8b9c-4d4e-9f5a-6b7c8d9e0f1a",
          target: { url: "https://shop.example.com/checkout" },
          allowedHosts: ["pay.example.net"],
          risk: "consequential",
          approved: true,
          steps: [
            { action: "fill", frame: "#payment", selector: "#card-holder", value: "Ada Lovelace" },
            { action: "click", frame: "#payment", selector: "button[type=submit]" },
            { action: "expect_text", text: "Order confirmed" },
          ],
        },
      },
    ],
  };
}
