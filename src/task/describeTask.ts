import { TASK_LIMITS } from "./limits.js";
import type { Risk, Step, Task, WAIT_STATES } from "./taskTypes.js";

/**
 * A task in plain words, for the person who must approve it: what it risks, every host it may
 * reach, each step as a sentence, and the secrets it types with where. Everything the assistant
 * wrote (selectors, values, the label) is quoted with JSON escapes and cut short, so a crafted
 * string can neither add a line to the summary nor pose as part of errand's own wording.
 */
export interface TaskDescription {
  risk: Risk;
  /** The risk in words. */
  riskText: string;
  target: string;
  /** The target's host, then each allowedHosts entry ("*.example.com" means its subdomains). */
  hosts: string[];
  steps: string[];
  /** Each secret the task types and the hosts it is typed on (or, once declared, bound to). */
  secrets: { name: string; sites: string[] }[];
  /** The assistant's label, quoted; absent when the task has none. */
  label?: string;
  /** The owner's site the task names (its saved login); absent when it names none. */
  site?: string;
}

const RISK_TEXT: Record<Risk, string> = {
  read_only: "read only: it only looks at pages; errand blocks every request that could change something",
  reversible_write: "a reversible write: it changes something on the site that can be undone",
  consequential: "consequential: it does something that may not be undoable (a payment, a message, an order, a deletion)",
};

const QUOTE_CHARS = 120;

/** A string the assistant wrote, quoted on one line (JSON escapes) and shortened. */
export function quote(text: string): string {
  const cut = text.length > QUOTE_CHARS ? `${text.slice(0, QUOTE_CHARS)}…` : text;
  // JSON.stringify escapes quotes, backslashes and control characters; the Unicode line and
  // paragraph separators and bidirectional controls are escaped too, so nothing can fake a line.
  return JSON.stringify(cut).replace(/[\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

const WAIT_WORDS: Record<(typeof WAIT_STATES)[number], string> = {
  visible: "appear",
  hidden: "be hidden or gone",
  attached: "be in the page",
  detached: "be gone from the page",
};

/** Each step in words; `host` is where the browser is when the step runs (the last page opened). */
function describeStep(step: Step, host: string): string {
  switch (step.action) {
    case "goto":
      return `open ${quote(step.url)}`;
    case "wait_for":
      if ("url" in step) return `wait until the address ${step.match === "exact" ? "is" : "starts with"} ${quote(step.url)}`;
      return `wait for ${quote(step.selector)} to ${WAIT_WORDS[step.state ?? "visible"]}`;
    case "click":
      return `click ${quote(step.selector)} on ${host}${step.then === "follow_new_tab" ? " and continue in the new tab it opens" : ""}`;
    case "fill":
      return `type ${quote(step.value)} into ${quote(step.selector)} on ${host}`;
    case "fill_secret":
      return `type the secret ${quote(step.secret)} into ${quote(step.selector)} on ${host}`;
    case "type":
      return `type ${quote(step.text)} key by key into ${quote(step.selector)} on ${host}`;
    case "select":
      return `choose ${quote(step.value)} in ${quote(step.selector)} on ${host}`;
    case "press":
      return step.selector === undefined ? `press ${step.key} on ${host}` : `press ${step.key} in ${quote(step.selector)} on ${host}`;
    case "check":
      return `tick ${quote(step.selector)} on ${host}`;
    case "uncheck":
      return `untick ${quote(step.selector)} on ${host}`;
    case "upload":
      return typeof step.file === "string"
        ? `upload the owner's file ${quote(step.file)} through ${quote(step.selector)} on ${host}`
        : `upload download ${step.file.download} of this task through ${quote(step.selector)} on ${host}`;
    case "extract_text":
      if (step.all === true)
        return `read the texts of every ${quote(step.selector)} (at most ${step.max ?? TASK_LIMITS.listItems.default}) as ${quote(step.name)}`;
      return `read the text of ${quote(step.selector)} as ${quote(step.name)}`;
    case "extract_attribute":
      return `read the ${quote(step.attribute)} attribute of ${quote(step.selector)} as ${quote(step.name)}`;
    case "expect_text":
      return `check that ${step.selector === undefined ? "the page" : quote(step.selector)} ${step.match === "exact" ? "reads exactly" : "contains"} ${quote(step.text)}`;
    case "expect_count":
      return `check that ${step.match === "exact" ? "exactly" : "at least"} ${step.count} ${quote(step.selector)} are on the page`;
    case "expect_url":
      return `check that the address ${step.match === "exact" ? "is" : "starts with"} ${quote(step.url)}`;
  }
}

/**
 * Describes a validated task. `secretSites` names the sites an owner-declared secret is bound to,
 * when errand knows them; otherwise a secret is listed with the hosts this task types it on.
 */
export function describeTask(task: Task, secretSites: (name: string) => string[] | undefined = () => undefined): TaskDescription {
  const targetHost = hostOf(task.target.url);
  const hosts = [targetHost, ...task.allowedHosts.filter((h) => h !== targetHost)];
  const steps: string[] = [`open ${quote(task.target.url)}`];
  const typedOn = new Map<string, Set<string>>();
  let host = targetHost;
  for (const step of task.steps) {
    steps.push(describeStep(step, host));
    if (step.action === "goto") host = hostOf(step.url);
    if (step.action === "fill_secret") {
      const seen = typedOn.get(step.secret) ?? new Set<string>();
      seen.add(host);
      typedOn.set(step.secret, seen);
    }
  }
  const secrets = [...typedOn].map(([name, on]) => ({ name, sites: secretSites(name) ?? [...on] }));
  return {
    risk: task.risk,
    riskText: RISK_TEXT[task.risk],
    target: task.target.url,
    hosts,
    steps,
    secrets,
    ...(task.label === undefined ? {} : { label: quote(task.label) }),
    ...(task.site === undefined ? {} : { site: task.site }),
  };
}

/** The description as plain text lines (what the CLI prints and the assistant can show). */
export function formatTaskDescription(description: TaskDescription, requestDigest: string): string {
  const lines = [
    `Risk: ${description.riskText}.`,
    `Target: ${quote(description.target)}`,
    `May reach: ${description.hosts.join(", ")}`,
    ...(description.label === undefined ? [] : [`Label (written by the assistant): ${description.label}`]),
    "Steps:",
    ...description.steps.map((step, index) => `  ${index + 1}. ${step}`),
    description.secrets.length === 0 ? "Secrets: none" : `Secrets: ${description.secrets.map((s) => `${quote(s.name)} on ${s.sites.join(", ")}`).join("; ")}`,
    `Request digest: ${requestDigest}`,
  ];
  return lines.join("\n");
}
