import type { Receipt } from "../receipt/receiptTypes.js";
import type { BreakerOutcome } from "./circuitBreaker.js";

/**
 * What one attempt says about its provider's health, the breaker's only rule.
 *
 * Only a provider that could not be reached or crashed (provider_unavailable) counts against it. A
 * refused credential (401/403) is shown on the provider's state instead, and a 429 only starts a
 * back-off (the router's learnFrom): neither says the provider is down, so neither opens the
 * circuit. A refusal before the browser (BLOCKED: configuration, approval, policy), a cancel, or
 * errand's own fault says nothing; everything else, including a task whose expectation failed on
 * the site, shows the provider worked.
 */
export function classifyOutcome(receipt: Receipt): BreakerOutcome {
  const code = receipt.error?.code;
  if (code === "provider_unavailable") return "provider_failure";
  if (code === "provider_auth_failed" || code === "provider_capacity") return "neutral";
  if (receipt.status === "BLOCKED" || receipt.status === "CANCELLED") return "neutral";
  if (code === "internal_error" || code === "circuit_open" || code === "configuration_error") return "neutral";
  return "success";
}
