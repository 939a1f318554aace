import type { ReceiptStatus } from "./receiptTypes.js";

export interface WriteFacts {
  /** The error code of the attempt, if any. */
  code: string | undefined;
  /** The attempt stopped because the operation was cancelled. */
  cancelled: boolean;
  /** The write's mutation boundary was crossed (something may have reached the site). */
  crossed: boolean;
}

/**
 * The one rule for how a write task ends, applied by the executor to its own evidence and again by
 * the runner with the store's durable boundary (so a receipt can never claim less than the store
 * knows). A write that ran to its end keeps its status: PASS, PARTIAL, or FAIL because a checked
 * expectation did not hold. Anything else did not finish: CANCELLED or BLOCKED when the boundary was
 * provably not crossed (nothing reached the site), UNCERTAIN when it was (something may have).
 */
export function settleWriteStatus(status: ReceiptStatus, facts: WriteFacts): ReceiptStatus {
  if (status === "PASS" || status === "PARTIAL") return status;
  if (facts.cancelled && !facts.crossed) return "CANCELLED";
  if (status === "FAIL" && facts.code === "expectation_failed") return status;
  if (facts.crossed) return "UNCERTAIN";
  return status === "CANCELLED" ? "CANCELLED" : "BLOCKED";
}
