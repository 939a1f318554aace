import { READ_ONLY_METHODS } from "../policy/readOnlyMethods.js";
import { UNTRUSTED_URL_CHARS, UNTRUSTED_TEXT_CHARS, UNTRUSTED_VALUE_CHARS } from "../receipt/untrustedText.js";
import { TASK_LIMITS } from "../task/limits.js";
import type { Step, Task } from "../task/taskTypes.js";
import {
  ACTION_TEMPLATES,
  BROWSERLESS_CLOSE,
  BROWSERLESS_GUARDS,
  BROWSERLESS_OPEN,
  BROWSERLESS_SESSION,
  PAGE_HELPERS,
  PROGRAM_EPILOGUE,
  PROGRAM_RULES,
} from "./browserlessTemplates.js";
import { KERNEL_CLOSE, KERNEL_GUARDS, KERNEL_OPEN, KERNEL_SESSION } from "./kernelTemplates.js";
import { plainCssRefusal } from "./plainCssRefusal.js";
import { PROGRAM_ACTIONS } from "./programTypes.js";
import type { ProgramAction, ProgramDialectName, ProgramLimits, ProgramParams, ProgramResult } from "./programTypes.js";

/** The task's time and a step's time when the task names none: the caller's (errand's configured defaults). */
export interface ProgramDefaults {
  taskMs: number;
  stepMs: number;
}

/** Blocked requests a program lists one by one (the rest are counted). */
const BLOCKED_ENTRIES = 50;

const LIMITS: ProgramLimits = {
  valueChars: UNTRUSTED_VALUE_CHARS,
  listDefault: TASK_LIMITS.listItems.default,
  listItemChars: TASK_LIMITS.listItemChars,
  listNameDigits: String(TASK_LIMITS.listItems.max).length,
  observedChars: UNTRUSTED_TEXT_CHARS,
  urlChars: UNTRUSTED_URL_CHARS,
  blockedEntries: BLOCKED_ENTRIES,
  messageChars: UNTRUSTED_TEXT_CHARS,
};

/** Why each action outside PROGRAM_ACTIONS stays out of program mode. */
const UNSUPPORTED_ACTIONS: Readonly<Record<Exclude<Step["action"], ProgramAction>, string>> = {
  fill_secret: "fill_secret would put the secret's value into the provider's VM, outside errand's process and its secret egress guard",
  upload: "upload would send the owner's file to the provider's VM, and program mode has no file transfer",
};

const isProgramAction = (action: string): action is ProgramAction => (PROGRAM_ACTIONS as readonly string[]).includes(action);

/**
 * Compiles a validated, normalized task into one Browserless /function program: the code is
 * assembled from errand's fixed templates alone (the guards, then one handler per action the task
 * uses, in the closed set's order), so two tasks with the same actions get byte-identical code
 * whatever their values; the values travel in `params`, JSON data the program reads from its
 * context. A task program mode cannot run as CDP mode would is refused whole, with the reason,
 * never turned into a partial program.
 */
export function generateProgram(task: Task, defaults: ProgramDefaults, dialect: ProgramDialectName = "browserless_function"): ProgramResult {
  const refusal = refusalOf(task);
  if (refusal !== null) return { ok: false, refusal };
  const used = new Set(task.steps.map((step) => step.action));
  const templates = new Set(PROGRAM_ACTIONS.filter((action) => used.has(action)).map((action) => ACTION_TEMPLATES[action]));
  const actions = PAGE_HELPERS + [...templates].join("") + PROGRAM_EPILOGUE;
  const params: ProgramParams = {
    v: 1,
    target: task.target.url,
    hosts: { exact: [new URL(task.target.url).hostname], patterns: [...task.allowedHosts], ports: explicitPorts(task) },
    readOnly: task.risk === "read_only",
    readOnlyMethods: [...READ_ONLY_METHODS],
    taskMs: task.timeouts?.taskMs ?? defaults.taskMs,
    stepMs: task.timeouts?.stepMs ?? defaults.stepMs,
    steps: task.steps.map((step) => ({ ...step })),
    limits: { ...LIMITS },
  };
  if (dialect === "kernel_execute") {
    // Kernel takes only code: the params ride in one base64 literal, data that is decoded and parsed, never run.
    const literal = Buffer.from(JSON.stringify(params), "utf8").toString("base64");
    return { ok: true, value: { code: KERNEL_OPEN + literal + KERNEL_SESSION + PROGRAM_RULES + KERNEL_GUARDS + actions + KERNEL_CLOSE, params } };
  }
  return { ok: true, value: { code: BROWSERLESS_OPEN + BROWSERLESS_SESSION + PROGRAM_RULES + BROWSERLESS_GUARDS + actions + BROWSERLESS_CLOSE, params } };
}

/** host:port of the target and each goto URL that names a port other than its scheme's own (URL.port is "" for those). */
function explicitPorts(task: Task): string[] {
  const urls = [task.target.url, ...task.steps.flatMap((step) => (step.action === "goto" ? [step.url] : []))];
  const ports = urls
    .map((url) => new URL(url))
    .filter((url) => url.port !== "")
    .map((url) => `${url.hostname}:${url.port}`);
  return [...new Set(ports)];
}

function refusalOf(task: Task): { path: string; message: string } | null {
  if (task.site !== undefined) {
    return {
      path: "/site",
      message:
        "A site task starts in the site's saved session; program mode would hand that session's cookies to the provider's VM, so it runs only in CDP mode.",
    };
  }
  if (task.evidence !== undefined) {
    return { path: "/evidence", message: "Program mode takes no screenshots; a task that asks for them runs in CDP mode." };
  }
  for (const [index, step] of task.steps.entries()) {
    const path = `/steps/${index}`;
    if (!isProgramAction(step.action)) {
      return { path: `${path}/action`, message: `Step ${index} (${step.action}) cannot run in program mode: ${UNSUPPORTED_ACTIONS[step.action]}.` };
    }
    if (step.frame !== undefined) {
      return {
        path: `${path}/frame`,
        message: `Step ${index} (${step.action}) looks inside a frame; program mode does not enter frames (their host check is CDP mode's).`,
      };
    }
    if (step.action === "click" && step.then !== undefined) {
      return { path: `${path}/then`, message: `Step ${index} (click) follows a new tab; program mode closes every page the site opens.` };
    }
    if (step.action === "extract_attribute" && step.attribute.toLowerCase() === "value") {
      return { path: `${path}/attribute`, message: `Step ${index} (extract_attribute) reads the value attribute, which errand never reads.` };
    }
    if ("selector" in step && typeof step.selector === "string") {
      const refused = plainCssRefusal(step.selector);
      if (refused !== null) {
        return { path: `${path}/selector`, message: `Step ${index} (${step.action}) uses ${refused}; program mode finds elements with plain CSS only.` };
      }
    }
  }
  return null;
}
