import type { ErrorCode } from "../errors/errorCodes.js";
import type { Receipt } from "../receipt/receiptTypes.js";
import type { BreakerOutcome } from "./circuitBreaker.js";

/** Failures of the provider itself: connect, auth, capacity/quota, crash, provider timeout. */
const PROVIDER_FAILURES: ReadonlySet<string> = new Set<ErrorCode>(["provider_unavailable", "provider_auth_failed", "provider_capacity"]);

/**
 * What an attempt says about its provider. A provider-class error is a failure; a refusal before the
 * browser (BLOCKED: configuration, approval, policy), a cancel, or errand's own fault says nothing;
 * everything else, including a task whose expectation failed on the site, shows the provider worked.
 */
export function classifyOutcome(receipt: Receipt): BreakerOutcome {
  const code = receipt.error?.code;
  if (code !== undefined && PROVIDER_FAILURES.has(code)) return "provider_failure";
  if (receipt.status === "BLOCKED" || receipt.status === "CANCELLED") return "neutral";
  if (code === "internal_error" || code === "circuit_open" || code === "configuration_error") return "neutral";
  return "success";
}
