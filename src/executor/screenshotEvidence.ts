import type { Page } from "playwright-core";
import { ARTIFACT_LIMITS } from "../receipt/artifactTypes.js";
import type { ArtifactBytes, ArtifactRecord } from "../receipt/artifactTypes.js";
import type { Task } from "../task/taskTypes.js";
import type { AttemptState } from "./attemptState.js";
import type { Redactor } from "./redactor.js";
import { SCREENSHOT_LIMITS, takeScreenshot } from "./takeScreenshot.js";

/** Time the page's text may take to read for the secret check (milliseconds). */
const TEXT_CHECK_MS = 2_000;

/** Whether the task's evidence.screenshots asks for an image of this attempt's end. */
export function wantsScreenshot(task: Task, state: AttemptState): boolean {
  const mode = task.evidence?.screenshots;
  return mode === "final" || (mode === "on_failure" && state.error !== null);
}

/**
 * The screenshot a task asked for (evidence.screenshots), taken while the session and its guards
 * are still up: the viewport, password fields masked, and every input, editable region and frame
 * masked when the task holds a declared secret. A page that shows a declared secret in its text
 * gets no screenshot at all (pixels cannot be scrubbed), and an image whose bytes happen to carry
 * a secret's spelling is dropped. Records the artifact (or why it is missing) in the attempt state
 * and returns its bytes for the runner to store.
 */
export async function screenshotEvidence(
  page: Page | null,
  task: Task,
  state: AttemptState,
  redactor: Redactor,
  options: { holdsSecret: boolean; timeoutMs: number },
): Promise<ArtifactBytes[]> {
  const deadline = Date.now() + options.timeoutMs;
  if (!wantsScreenshot(task, state)) return [];
  const omit = (reason: string): ArtifactBytes[] => {
    state.artifactsOmitted = reason;
    return [];
  };
  if (page === null || page.isClosed()) return omit("The page was gone when the attempt ended; no screenshot was taken.");
  if (redactor.active && (await showsSecret(page, redactor, Math.min(TEXT_CHECK_MS, options.timeoutMs / 2))))
    return omit("The page shows a declared secret (or could not be read to rule that out); no screenshot was taken.");
  const taken = await takeScreenshot(page, {
    mask: options.holdsSecret ? "every_input" : "passwords",
    maxBytes: Math.min(ARTIFACT_LIMITS.imageBytes, ARTIFACT_LIMITS.screenshotBytes),
    timeoutMs: Math.max(1, Math.min(SCREENSHOT_LIMITS.timeoutMs, deadline - Date.now())),
  });
  if (!taken.ok) return omit(taken.reason);
  if (redactor.active && redactor.carries(taken.shot.image.toString("latin1")))
    return omit("The image's bytes carried a declared secret's spelling; it was left out.");
  const record: ArtifactRecord = {
    index: state.artifacts.length,
    kind: "screenshot",
    moment: state.error === null ? "final" : "failure",
    mediaType: taken.shot.mimeType,
    bytes: taken.shot.bytes,
    sha256: taken.shot.sha256,
  };
  state.artifacts.push(record);
  return [{ ...record, data: taken.shot.image }];
}

/** True when the page's visible text carries a declared secret in any spelling errand scrubs, or cannot be read in time. */
async function showsSecret(page: Page, redactor: Redactor, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), timeoutMs);
  });
  const read = page.evaluate(() => `${document.title}\n${document.documentElement.innerText}`).catch(() => null);
  const text = await Promise.race([read, late]).finally(() => clearTimeout(timer));
  return text === null || redactor.carries(text);
}
