import { SCHEMA_VERSION, TASK_LIMITS } from "../../../task/limits.js";
import { STEP_FIELDS } from "../../../task/readStep.js";
import {
  CLICK_THEN,
  COUNT_MATCHES,
  PROVIDER_NAMES,
  RETENTION_LEVELS,
  RISK_LEVELS,
  SCREENSHOT_MODES,
  TEXT_MATCHES,
  URL_MATCHES,
  WAIT_STATES,
} from "../../../task/taskTypes.js";
import type { StepAction } from "../../../task/taskTypes.js";

/** "goto(url) click(selector) ...": which fields each action takes, in the fewest bytes a model can read. */
function actionSignatures(): string {
  // envVar is another spelling of secret: the validator accepts it, the model needs only one.
  return (Object.keys(STEP_FIELDS) as StepAction[]).map((action) => `${action}(${STEP_FIELDS[action].filter((f) => f !== "envVar").join(",")})`).join(" ");
}

/**
 * The task argument of errand_run, typed inline so the model can write a task without first
 * calling errand_task_schema, and the OpenAPI document's Task. Built from the constants
 * validateTask enforces; it describes the task, it does not validate it: MCP and REST hand the raw
 * task to the same validator as the CLI, which reports every problem with its JSON Pointer.
 */
export function taskInputSchema(): Record<string, unknown> {
  // Lengths are left to the validator (errand_task_schema lists them): each would cost bytes in every tools/list.
  const str = { type: "string" };
  return {
    type: "object",
    description: `The task (${SCHEMA_VERSION}). errand_task_schema has examples and every rule.`,
    required: ["schemaVersion", "operationId", "target", "risk", "steps"],
    additionalProperties: false,
    properties: {
      schemaVersion: { const: SCHEMA_VERSION },
      operationId: { type: "string", format: "uuid", description: "New UUID per task; reuse only to retry the same task." },
      label: str,
      site: { type: "string", description: "Owner's site: start logged in." },
      target: { type: "object", required: ["url"], properties: { url: str } },
      allowedHosts: {
        type: "array",
        maxItems: TASK_LIMITS.maxAllowedHosts,
        items: { type: "string" },
        description: 'Other hosts the page may open: "a.example.com", "*.example.com".',
      },
      risk: { enum: [...RISK_LEVELS], description: "read_only sends only GET; writes need approved." },
      approved: { type: "boolean", description: "true only after the person agreed to this write." },
      secretApproval: { type: "boolean", description: "true only after the person agreed to fill_secret." },
      evidenceRetention: { enum: [...RETENTION_LEVELS] },
      provider: { enum: [...PROVIDER_NAMES] },
      timeouts: { type: "object", properties: { taskMs: { type: "integer" }, stepMs: { type: "integer" } } },
      evidence: { type: "object", properties: { screenshots: { enum: [...SCREENSHOT_MODES] } } },
      steps: {
        type: "array",
        minItems: TASK_LIMITS.minSteps,
        maxItems: TASK_LIMITS.maxSteps,
        items: {
          type: "object",
          required: ["action"],
          additionalProperties: false,
          properties: {
            action: { enum: Object.keys(STEP_FIELDS), description: actionSignatures() },
            selector: str,
            frame: { anyOf: [str, { type: "array", items: str }], description: "iframe selector(s)" },
            url: str,
            value: str,
            text: str,
            name: str,
            attribute: str,
            key: str,
            then: { enum: [...CLICK_THEN] },
            secret: { type: "string", description: "Name of a secret the owner declared (never a value)." },
            file: { anyOf: [str, { type: "object" }], description: 'Owner file name, or {"download":N}.' },
            state: { enum: [...WAIT_STATES] },
            all: { type: "boolean", description: "extract_text: every match, as name.001..." },
            max: { type: "integer" },
            count: { type: "integer" },
            match: { enum: [...new Set([...TEXT_MATCHES, ...URL_MATCHES, ...COUNT_MATCHES])] },
            timeoutMs: { type: "integer" },
          },
        },
      },
    },
  };
}
