import { UNTRUSTED_VALUE_CHARS, untrusted } from "../receipt/untrustedText.js";
import type { Frame, Locator, Page } from "playwright-core";
import type { Check } from "../receipt/receiptTypes.js";
import { TASK_LIMITS } from "../task/limits.js";
import type {
  CheckStep,
  ExpectCountStep,
  ExpectTextStep,
  ExpectUrlStep,
  ExtractTextStep,
  FillSecretStep,
  SelectStep,
  Step,
  UploadStep,
  WaitForStep,
} from "../task/taskTypes.js";
import { StepFailure, firstLine, isTimeout } from "./stepFailure.js";
import { stepRoot } from "./stepFrame.js";

const POLL_MS = 100;

export interface StepEnvironment {
  page: Page;
  timeoutMs: number;
  /** Types a declared secret where its site binding allows (typeSecret); throws StepFailure otherwise. */
  fillSecret: (step: FillSecretStep, timeoutMs: number) => Promise<void>;
  /** The bytes an upload step names (an owner file, or an earlier download of the attempt), with a file name for the input; throws StepFailure when there are none. */
  uploadBytes: (file: UploadStep["file"], timeoutMs: number) => Promise<{ name: string; mimeType: string; buffer: Buffer }>;
  /** Checks a goto URL against layer 1 and the host allowlist; throws StepFailure when refused. */
  approveNavigation: (url: string) => Promise<string>;
  scrub: (text: string) => string;
  /** Whether a URL is on one of the task's hosts (its target and allowedHosts). */
  onTaskHosts: (url: string) => boolean;
  /**
   * Crosses the mutation boundary in a write task (nothing in a read_only one). A step that acts on
   * its own calls it after its read-only checks, just before it acts, so a step that could not act
   * ends with the boundary not crossed.
   */
  beforeAct: () => Promise<void>;
  /** Told when the step moves from waiting for its element to acting on it (the receipt's timeout phase). */
  onPhase?: (phase: "waiting" | "acting") => void;
}

/**
 * Steps that act on an element and cross a write's boundary only once the element is there: a
 * write whose element never appears ends with nothing sent (the boundary not crossed), never
 * UNCERTAIN. createExecutor leaves their crossing to performStep.
 */
export const WAITS_THEN_CROSSES: ReadonlySet<string> = new Set(["click", "fill", "type", "press", "check", "uncheck"]);

/** The step's environment with the page or frame its selector looks in (stepRoot). */
type Located = StepEnvironment & { root: Page | Frame };

/** downloadLink: the step clicked or pressed a key on a link with a download attribute, whose download no navigation announces. */
export type StepResult = { output?: { name: string; value: string }; outputs?: { name: string; value: string }[]; check?: Check; downloadLink?: true };

/**
 * Whether the element a step just acted on is, or sits inside, a link the browser downloads rather
 * than opens (errand's own check, run in the page). Asked after the action: a download link leaves
 * the page where it is, so the element is still there; a page that navigated away answers false.
 */
async function isDownloadLink(target: Locator): Promise<boolean> {
  // evaluateAll does not wait for the element: a page that moved on answers with none (or throws).
  return target.evaluateAll((elements) => elements.some((element) => element.closest("a[download]") !== null)).catch(() => false);
}

/** Performs one step. Failures throw StepFailure with a code; Playwright errors are translated here. */
export async function performStep(step: Step, index: number, env: StepEnvironment): Promise<StepResult> {
  const { page, timeoutMs } = env;
  let root: Page | Frame = page;
  try {
    root = await stepRoot(step, index, env);
    const located: Located = { ...env, root };
    if (WAITS_THEN_CROSSES.has(step.action)) {
      const selector = "selector" in step ? step.selector : undefined;
      if (selector !== undefined) await root.locator(selector).first().waitFor({ state: "visible", timeout: timeoutMs });
      env.onPhase?.("acting");
      await env.beforeAct();
    }
    switch (step.action) {
      case "goto": {
        const href = await env.approveNavigation(step.url);
        await page.goto(href, { timeout: timeoutMs, waitUntil: "load" });
        return {};
      }
      case "wait_for":
        if ("url" in step) await waitForUrl(step, index, env);
        else
          await root
            .locator(step.selector)
            .first()
            .waitFor({ state: step.state ?? "visible", timeout: timeoutMs });
        return {};
      case "click":
        await root.locator(step.selector).click({ timeout: timeoutMs });
        return (await isDownloadLink(root.locator(step.selector))) ? { downloadLink: true } : {};
      case "fill":
        await root.locator(step.selector).fill(step.value, { timeout: timeoutMs });
        return {};
      case "fill_secret":
        await env.fillSecret(step, timeoutMs);
        return {};
      case "type":
        await root.locator(step.selector).pressSequentially(step.text, { timeout: timeoutMs });
        return {};
      case "select":
        await selectOption(step, index, located);
        return {};
      case "upload": {
        // The file is found before the boundary, so a missing one leaves a write BLOCKED with nothing sent.
        const payload = await env.uploadBytes(step.file, timeoutMs);
        const input = root.locator(step.selector);
        await input.waitFor({ state: "attached", timeout: timeoutMs });
        await env.beforeAct();
        await input.setInputFiles(payload, { timeout: timeoutMs });
        return {};
      }
      case "press":
        if (step.selector === undefined) await page.keyboard.press(step.key);
        else await root.locator(step.selector).press(step.key, { timeout: timeoutMs });
        return (await isDownloadLink(root.locator(step.selector ?? ":focus"))) ? { downloadLink: true } : {};
      case "check":
      case "uncheck":
        await setChecked(step, index, located);
        return {};
      // Extracted values are cut at the value cap so a page cannot flood a receipt (receipt/untrustedText).
      case "extract_text": {
        if (step.all === true) return { outputs: await extractList(step, located) };
        const text = await root.locator(step.selector).innerText({ timeout: timeoutMs });
        return { output: { name: step.name, value: env.scrub(text).slice(0, UNTRUSTED_VALUE_CHARS) } };
      }
      case "extract_attribute": {
        const value = await root.locator(step.selector).getAttribute(step.attribute, { timeout: timeoutMs });
        if (value === null) throw new StepFailure("step_failed", `The element has no "${step.attribute}" attribute.`);
        return { output: { name: step.name, value: env.scrub(value).slice(0, UNTRUSTED_VALUE_CHARS) } };
      }
      case "expect_text":
        return { check: await expectText(step, index, located) };
      case "expect_url":
        return { check: await expectUrl(step, index, env) };
      case "expect_count":
        return { check: await expectCount(step, index, located) };
    }
  } catch (error) {
    if (error instanceof StepFailure) throw error;
    const detail = env.scrub(firstLine(error));
    const selector = "selector" in step ? step.selector : undefined;
    const cause = selector === undefined ? "." : await selectorCause(env.page, root, selector);
    if (isTimeout(error)) throw new StepFailure("timeout", `Step ${index} (${step.action}) timed out after ${timeoutMs} ms${cause}`, detail);
    throw new StepFailure("step_failed", `Step ${index} (${step.action}) failed${cause}`, detail);
  }
}

/**
 * Sets a checkbox or radio to the state the step names. Playwright clicks only when the state
 * differs (so a repeated step sends nothing), and the state is read back after: a page that undoes
 * the click, or an element that is no checkbox or radio, fails the step.
 */
async function setChecked(step: CheckStep, index: number, env: Located): Promise<void> {
  const target = env.root.locator(step.selector);
  const wanted = step.action === "check";
  await target.setChecked(wanted, { timeout: env.timeoutMs });
  if ((await target.isChecked({ timeout: env.timeoutMs })) !== wanted) {
    throw new StepFailure(
      "step_failed",
      `Step ${index} (${step.action}): the element matching ${JSON.stringify(step.selector)} is ${wanted ? "still unchecked" : "still checked"} after the click; the page undid it.`,
    );
  }
}

/**
 * The texts of every element matching the step's selector, in document order, as outputs
 * name.001, name.002, ... plus name.count (how many matched). It waits for a first match like a
 * single extract. The bounds apply inside the page: only `max` texts, each cut to
 * TASK_LIMITS.listItemChars, ever leave the browser, however many elements match.
 */
async function extractList(step: ExtractTextStep, env: Located): Promise<{ name: string; value: string }[]> {
  const locator = env.root.locator(step.selector);
  await locator.first().waitFor({ state: "attached", timeout: env.timeoutMs });
  const bounds = { max: step.max ?? TASK_LIMITS.listItems.default, chars: TASK_LIMITS.listItemChars };
  const read = await locator.evaluateAll(
    (elements, { max, chars }) => ({
      count: elements.length,
      texts: elements.slice(0, max).map((element) => (element instanceof HTMLElement ? element.innerText : (element.textContent ?? "")).slice(0, chars)),
    }),
    bounds,
  );
  const texts = read.texts.slice(0, bounds.max);
  return [
    ...texts.map((text, at) => ({ name: listOutputName(step.name, at), value: env.scrub(text.slice(0, bounds.chars)) })),
    { name: `${step.name}.count`, value: String(read.count) },
  ];
}

/** The output name of a list's text at `at` (0-based): numbered from 1, padded so names sort in document order. */
export function listOutputName(name: string, at: number): string {
  return `${name}.${String(at + 1).padStart(String(TASK_LIMITS.listItems.max).length, "0")}`;
}

interface OptionSeen {
  value: string;
  label: string;
  disabled: boolean;
}

/**
 * Chooses the option whose value is `step.value`, or else the first whose visible label is (spaces
 * collapsed). The option is found by reading the page first, waiting for late options within the
 * step's time; only a found, enabled option crosses the boundary, so a missing one sends nothing.
 */
async function selectOption(step: SelectStep, index: number, env: Located): Promise<void> {
  const deadline = Date.now() + env.timeoutMs;
  const select = env.root.locator(step.selector);
  await select.waitFor({ state: "visible", timeout: env.timeoutMs });
  const wanted = normalizeSpace(step.value);
  let options: OptionSeen[] = [];
  let chosen = -1;
  for (;;) {
    options = await select.evaluate((element) =>
      element instanceof HTMLSelectElement
        ? Array.from(element.options, (option) => ({ value: option.value, label: option.label, disabled: option.disabled }))
        : [],
    );
    chosen = options.findIndex((option) => option.value === step.value);
    if (chosen < 0) chosen = options.findIndex((option) => normalizeSpace(option.label) === wanted);
    if (chosen >= 0 || Date.now() >= deadline) break;
    await env.page.waitForTimeout(POLL_MS);
  }
  const option = options[chosen];
  if (option === undefined) {
    const seen = options
      .slice(0, 20)
      .map((o) => `${JSON.stringify(o.value)} (${normalizeSpace(o.label)})`)
      .join(", ");
    throw new StepFailure(
      "step_failed",
      `Step ${index} (select): the element matching ${JSON.stringify(step.selector)} has no option whose value or visible label is ${JSON.stringify(step.value)}; nothing was chosen. error.detail lists the options seen.`,
      options.length === 0 ? "no options (or not a <select>)" : seen,
    );
  }
  if (option.disabled)
    throw new StepFailure(
      "step_failed",
      `Step ${index} (select): the option ${JSON.stringify(step.value)} in ${JSON.stringify(step.selector)} is disabled; nothing was chosen.`,
    );
  await env.beforeAct();
  const selected = await select.selectOption({ index: chosen }, { timeout: Math.max(1, deadline - Date.now()) });
  if (!selected.includes(option.value))
    throw new StepFailure("step_failed", `Step ${index} (select): the option ${JSON.stringify(step.value)} was not selected; the page changed its options.`);
}

/**
 * The likely cause of a failed step on `selector`, in plain words: nothing matches it, or more than
 * one element does. Counted after the failure, on the page as it is then.
 */
async function selectorCause(page: Page, root: Page | Frame, selector: string): Promise<string> {
  if (page.isClosed()) return ".";
  const count = await root
    .locator(selector)
    .count()
    .catch(() => -1);
  const where = root === page ? "on the page" : "in the step's frame";
  if (count === 0) return `: no element matches the selector ${JSON.stringify(selector)}. failure.candidates lists selectors errand found ${where}.`;
  if (count > 1)
    return `: the selector ${JSON.stringify(selector)} matches ${count} elements; a step needs one. failure.candidates lists selectors errand checked.`;
  if (count === 1)
    return `: the element matching ${JSON.stringify(selector)} exists but did not accept the action (hidden, disabled, covered, or not the right kind of element).`;
  return ".";
}

/** Whitespace runs count as one space, so layout line breaks do not decide a check. */
function normalizeSpace(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

async function expectText(step: ExpectTextStep, index: number, env: Located): Promise<Check> {
  const expected = normalizeSpace(step.text);
  const holds = (seen: string) => (step.match === "exact" ? normalizeSpace(seen) === expected : normalizeSpace(seen).includes(expected));
  let observed = "";
  const deadline = Date.now() + env.timeoutMs;
  for (;;) {
    const remaining = Math.max(1, deadline - Date.now());
    try {
      const locator = step.selector === undefined ? env.root.locator("body") : env.root.locator(step.selector);
      observed = await locator.innerText({ timeout: Math.min(remaining, 1_000) });
      if (holds(observed)) break;
    } catch (error) {
      if (!isTimeout(error)) throw error;
      // Keep what was last seen; say "nothing matched" only if nothing ever did.
      if (observed === "") observed = step.selector === undefined ? "(no page body)" : `(no element matches ${step.selector})`;
    }
    if (Date.now() >= deadline) {
      return failedCheck(step, index, env.scrub(normalizeSpace(observed)));
    }
    await env.page.waitForTimeout(POLL_MS);
  }
  return {
    step: index,
    action: step.action,
    expected: step.text,
    match: step.match,
    ...(step.selector === undefined ? {} : { selector: step.selector }),
    passed: true,
  };
}

/**
 * Waits until the page is at the step's URL (exact or prefix). The URL must be on the task's hosts,
 * as a goto's must: a wait names only addresses the task may be at.
 */
async function waitForUrl(step: Extract<WaitForStep, { url: string }>, index: number, env: StepEnvironment): Promise<void> {
  if (!env.onTaskHosts(step.url))
    throw new StepFailure(
      "navigation_blocked",
      `Step ${index} (wait_for) waits for ${env.scrub(step.url)}, which is not on one of the task's hosts; add its host to allowedHosts if it is meant.`,
    );
  const holds = (seen: string) => (step.match === "exact" ? seen === step.url : seen.startsWith(step.url));
  const deadline = Date.now() + env.timeoutMs;
  let seen = env.page.url();
  while (!holds(seen)) {
    if (Date.now() >= deadline) {
      throw new StepFailure(
        "timeout",
        `Step ${index} (wait_for) timed out after ${env.timeoutMs} ms: the page never was at ${step.match === "exact" ? "" : "an address starting with "}${env.scrub(step.url)}; error.detail has the address it was at.`,
        seen,
      );
    }
    await env.page.waitForTimeout(POLL_MS);
    seen = env.page.url();
  }
}

async function expectUrl(step: ExpectUrlStep, index: number, env: StepEnvironment): Promise<Check> {
  const holds = (seen: string) => (step.match === "exact" ? seen === step.url : seen.startsWith(step.url));
  const deadline = Date.now() + env.timeoutMs;
  let seen = env.page.url();
  while (!holds(seen)) {
    if (Date.now() >= deadline) return failedCheck(step, index, env.scrub(seen));
    await env.page.waitForTimeout(POLL_MS);
    seen = env.page.url();
  }
  return { step: index, action: step.action, expected: step.url, match: step.match, passed: true };
}

async function expectCount(step: ExpectCountStep, index: number, env: Located): Promise<Check> {
  const holds = (seen: number) => (step.match === "exact" ? seen === step.count : seen >= step.count);
  const locator = env.root.locator(step.selector);
  const deadline = Date.now() + env.timeoutMs;
  let seen = await locator.count();
  while (!holds(seen)) {
    if (Date.now() >= deadline) return failedCheck(step, index, String(seen));
    await env.page.waitForTimeout(POLL_MS);
    seen = await locator.count();
  }
  return { step: index, action: step.action, expected: String(step.count), match: step.match, selector: step.selector, passed: true };
}

/** Cap of checks[].observed, in characters. */
export const OBSERVED_CHARS = 300;

function failedCheck(step: ExpectTextStep | ExpectUrlStep | ExpectCountStep, index: number, observed: string): Check {
  const expected = step.action === "expect_text" ? step.text : step.action === "expect_url" ? step.url : String(step.count);
  const selector = step.action !== "expect_url" && step.selector !== undefined ? { selector: step.selector } : {};
  return { step: index, action: step.action, expected, match: step.match, ...selector, passed: false, observed: untrusted(observed, OBSERVED_CHARS) };
}
