import type { PreflightEvidence } from "../receipt/receiptTypes.js";

/** A decision about one URL or address, with a code and a reason a person can read. */
export interface GuardVerdict {
  allowed: boolean;
  code: string;
  reason: string;
}

/**
 * The network policy as the executor needs it. Layer 1 (preflight, with DNS) runs before the
 * browser goes to a URL the task names; layer 2 (a synchronous check without DNS) runs on every
 * request the browser makes. Host allowlisting of main-frame navigations is done by the executor.
 */
export interface NetworkGuard {
  preflight(url: string): Promise<PreflightEvidence & { href: string | null; reason: string }>;
  checkRequest(url: string): GuardVerdict;
  /** Refuses an allowedHosts list the policy could never honour (localhost, metadata names, ...), before the browser opens. */
  checkAllowedHosts(patterns: readonly string[]): GuardVerdict;
  /**
   * The same policy for one task: operator allowances narrowed to the hosts the task names (its
   * target's host and allowedHosts). The executor uses only this for a task, in every check.
   */
  forTask(taskHosts: readonly string[]): NetworkGuard;
}
