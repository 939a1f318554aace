import type { Receipt, RetryVerdict } from "../receipt/receiptTypes.js";
import type { Risk } from "../task/taskTypes.js";

/** Failures another attempt may not meet: the provider, the network or the clock, not the page's content. */
const TRANSIENT_CODES: Readonly<Record<string, string>> = {
  timeout: "The attempt ran out of time; the site or the browser may be faster on another attempt.",
  task_timeout: "The task's budget ran out while the browser was still working; the site or the browser may be faster on another attempt.",
  provider_unavailable: "The browser or its provider failed; another attempt gets a fresh session.",
  provider_capacity: "The provider was at its limit; another attempt may find a free slot.",
};

export interface RetryFacts {
  risk: Risk;
  receipt: Pick<Receipt, "status" | "error" | "targetStatus">;
  /** Attempts started so far, this one included, and the most the operation may use. */
  attempts: number;
  maxAttempts: number;
  cancelRequested: boolean;
}

/**
 * Whether a failed attempt runs again: the one home of errand's retry rule. Only a read_only FAIL
 * is ever retried, and only when another attempt can change the outcome: navigation or network
 * errors (the target never loaded), timeouts, a target whose document answered 5xx, provider
 * failures. A failed expectation or a missing element on a page that loaded without a 5xx is
 * final at once, as is every policy refusal. A write is never retried (it may have changed the
 * site). Pure: decided from the receipt and the operation's counts.
 */
export function decideRetry(facts: RetryFacts): RetryVerdict {
  if (facts.risk !== "read_only") return { decision: "final", reason: "A write is never retried: it may already have changed the site." };
  if (facts.receipt.status !== "FAIL") return { decision: "final", reason: `The attempt ended ${facts.receipt.status}; only a failure is retried.` };
  if (facts.cancelRequested) return { decision: "final", reason: "A cancel was requested." };
  const cause = transientCause(facts.receipt);
  if (cause === null) return { decision: "final", reason: finalReason(facts.receipt) };
  if (facts.attempts >= facts.maxAttempts)
    return { decision: "final", reason: `${cause} But all ${facts.maxAttempts} attempts are used (ERRAND_MAX_ATTEMPTS).` };
  return { decision: "retry", reason: cause };
}

function transientCause(receipt: RetryFacts["receipt"]): string | null {
  const code = receipt.error?.code;
  if (code !== undefined && code in TRANSIENT_CODES) return TRANSIENT_CODES[code] ?? null;
  const status = receipt.targetStatus;
  if (status !== undefined && status !== null && status >= 500) return `The target answered HTTP ${status}; a server error may pass.`;
  // The target never answered at all (connection refused or reset, DNS in the browser, TLS): a network error.
  if (code === "step_failed" && receipt.error?.step === null && (status === undefined || status === null))
    return "The target did not load (a navigation or network error); it may load on another attempt.";
  return null;
}

function finalReason(receipt: RetryFacts["receipt"]): string {
  const code = receipt.error?.code;
  const loaded =
    receipt.targetStatus === undefined || receipt.targetStatus === null ? "a page that loaded" : `a page that loaded (HTTP ${receipt.targetStatus})`;
  if (code === "expectation_failed") return `An expectation did not hold on ${loaded}; another attempt would read the same page.`;
  if (code === "step_failed") return `A step failed (for example its element is absent) on ${loaded}; another attempt would meet the same page.`;
  if (code === "cancelled") return "The attempt was cancelled.";
  return `${code ?? "This failure"} follows from the task and errand's policy, not from chance; another attempt would end the same way.`;
}
