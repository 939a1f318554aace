import type { ReceiptStatus } from "./receiptTypes.js";

/** How an attempt ended, or an operation that never reached one: the fact its status is decided from. */
export type AttemptEnd =
  /**
   * Stopped before anything could reach the site: refused before a browser opened, ended while it
   * waited for the owner, a stored task that failed its digest, or an attempt whose own evidence
   * already said nothing was done.
   */
  | { kind: "untouched" }
  /** Stopped by a cancel. */
  | { kind: "cancelled" }
  /** Stopped before its end by the error with this code. */
  | { kind: "stopped"; code: string }
  /** Every step ran: `held` of the `expectations` that were checked held. */
  | { kind: "ran"; expectations: number; held: number };

export interface StatusFacts {
  /** The task may change the site (its risk is not read_only). */
  write: boolean;
  /** The write's mutation boundary was crossed, by the attempt's own evidence or the store's record. */
  crossed: boolean;
  end: AttemptEnd;
}

/** Checks that run before a task's first change and refuse it: nothing was typed or sent. */
const STOPPED_BEFORE_ANYTHING = new Set(["secret_site_mismatch", "login_required"]);

/**
 * The one rule for a receipt's status, applied by every writer of one: the executor to its own
 * evidence, the runner again with the store's durable boundary (so a receipt never claims less than
 * the store knows), lease recovery, the queued cancel, the approval's end.
 * - PASS needs expectations, every one held; a task that ran with none is PARTIAL.
 * - An expectation that did not hold is FAIL, a write's included: the page was checked and said no.
 * - A write that did not run to its end is UNCERTAIN once its boundary was crossed (something may
 *   have reached the site), and otherwise CANCELLED or BLOCKED: provably nothing reached it.
 * - A read that stopped is CANCELLED, BLOCKED when it was stopped before anything was done, FAIL
 *   otherwise.
 */
export function decideStatus(facts: StatusFacts): ReceiptStatus {
  const { end, write, crossed } = facts;
  if (end.kind === "ran") return end.expectations === 0 ? "PARTIAL" : end.held === end.expectations ? "PASS" : "FAIL";
  if (end.kind === "stopped" && end.code === "expectation_failed") return "FAIL";
  if (write && crossed) return "UNCERTAIN";
  if (end.kind === "cancelled") return "CANCELLED";
  if (end.kind === "untouched" || write) return "BLOCKED";
  return STOPPED_BEFORE_ANYTHING.has(end.code) && !crossed ? "BLOCKED" : "FAIL";
}
