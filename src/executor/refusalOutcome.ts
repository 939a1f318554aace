import { untrusted } from "../receipt/untrustedText.js";
import type { Task } from "../task/taskTypes.js";
import type { Refusal, TargetVerdict } from "./admitTask.js";
import { AttemptState } from "./attemptState.js";
import { buildReceipt } from "./buildReceipt.js";
import type { AttemptOutcome } from "./executeTaskTypes.js";
import type { Redactor } from "./redactor.js";
import { wantsScreenshot } from "./screenshotEvidence.js";

export interface RefusalFacts {
  task: Task;
  requestDigest: string;
  attempt: number;
  /** The provider the receipt names: the executor's own, or for the router the pinned one ("none" for auto). */
  provider: string;
  startedAt: Date;
  refusal: Refusal;
  /** The preflight verdicts gathered before the refusal (admission's), listed in network.preflight. */
  preflight: readonly TargetVerdict[];
  /** Scrubs the secrets revealed before the refusal from every string of the receipt. */
  redactor: Redactor;
}

/**
 * The receipt of a task refused before any browser opened, whoever refused it (the admission step,
 * a provider that is not configured or refused the session, no provider able to take it): BLOCKED,
 * every step listed as skipped, no page, the preflight evidence gathered so far, and why a
 * screenshot the task asked for is missing. The one place such a receipt is built.
 */
export function refusalOutcome(facts: RefusalFacts): AttemptOutcome {
  const { task, refusal, redactor } = facts;
  const state = new AttemptState();
  state.network.preflight.push(...facts.preflight);
  state.steps.push(...task.steps.map((step, index) => ({ index, action: step.action, status: "skipped" as const, durationMs: 0 })));
  state.error = {
    code: refusal.code,
    message: refusal.message,
    step: null,
    ...(refusal.detail === undefined ? {} : { detail: untrusted(redactor.scrub(refusal.detail)) }),
  };
  if (wantsScreenshot(task, state)) state.artifactsOmitted = "The attempt was refused before any browser opened; there was no page to capture.";
  return buildReceipt(
    {
      task,
      requestDigest: facts.requestDigest,
      attempt: facts.attempt,
      provider: facts.provider,
      finalUrl: null,
      startedAt: facts.startedAt,
      durationMs: Date.now() - facts.startedAt.getTime(),
      refusedBeforeBrowser: true,
    },
    state,
    redactor,
  );
}
