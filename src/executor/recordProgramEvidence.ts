import { asErrorCode } from "../errors/errorCodes.js";
import type { ProgramEvidence } from "../program/programTypes.js";
import { untrusted } from "../receipt/untrustedText.js";
import type { Task } from "../task/taskTypes.js";
import type { AttemptState } from "./attemptState.js";
import type { Redactor } from "./redactor.js";

/** What a program's failure code means, in errand's words; the browser's own words go to error.detail. */
const FAILURE_WORDS: Record<string, string> = {
  navigation_blocked: "the browser was stopped from leaving the task's hosts (or the address was refused)",
  step_failed: "the step could not be done",
  expectation_failed: "the expectation did not hold; what the page showed is in checks[].observed",
  timeout: "the step ran out of its own time",
  task_timeout: "the task's time ran out",
  internal_error: "the program failed in a way errand did not anticipate",
  value_attribute_forbidden: "the value attribute is never read",
};

/**
 * Writes a program's validated evidence into the attempt's state, as the CDP executor's guards and
 * steps write theirs, so one receipt builder and one status rule serve both modes. Every string the
 * page chose (observed text, blocked addresses, the browser's words) is scrubbed and wrapped as
 * untrusted here or by buildReceipt. The mutation boundary is the program executor's to set: a
 * write's program crosses it when it is sent, whatever the evidence says afterwards.
 */
export function recordProgramEvidence(task: Task, evidence: ProgramEvidence, state: AttemptState, redactor: Redactor): void {
  state.targetStatus = evidence.targetStatus;
  for (const step of evidence.steps)
    state.steps.push({ index: step.step, action: step.action, status: step.status === "passed" ? "ok" : step.status, durationMs: 0 });
  for (const check of evidence.checks) {
    const { observed, ...rest } = check;
    state.checks.push({ ...rest, ...(observed === undefined ? {} : { observed: untrusted(redactor.scrub(observed)) }) });
  }
  Object.assign(state.outputs, evidence.outputs);
  for (const entry of evidence.blocked) {
    const reason =
      entry.code === "method_blocked"
        ? `${entry.method} is not allowed in a read_only task (stopped in the provider's browser)`
        : "its host is not one of the task's hosts (stopped in the provider's browser)";
    state.recordBlocked(
      { url: entry.url, method: entry.method, resourceType: entry.resourceType, code: entry.code, reason },
      entry.code === "method_blocked" ? "method" : "policy",
    );
  }
  // Requests past the listed ones were counted by the program without their kind: as policy blocks.
  state.network.blockedRequests += evidence.blockedCount - evidence.blocked.length;
  state.network.popupsClosed += evidence.popupsClosed;
  state.lastUrl = evidence.finalUrl;
  if (evidence.failure !== null) {
    const { step, code, message } = evidence.failure;
    const where = step === null ? "Opening the target" : `Step ${step} (${task.steps[step]?.action ?? "unknown"})`;
    const words = FAILURE_WORDS[code] ?? "it failed";
    state.error = {
      code: asErrorCode(code, "step_failed"),
      message: `${where} failed in the provider's browser: ${words}; error.detail has the browser's words.`,
      step,
      detail: untrusted(redactor.scrub(message)),
    };
  }
}
