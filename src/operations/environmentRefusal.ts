import type { ErrorCode } from "../errors/errorCodes.js";
import type { Receipt } from "../receipt/receiptTypes.js";

/**
 * Refusals caused by errand's own environment, not by the task: no Chromium (configuration_error),
 * the resolver (dns_failed: errand cannot tell an unreachable resolver from a name that does not
 * exist, and nothing ran either way), a provider unconfigured, unverified, unavailable, refusing
 * errand's credential, at capacity, over budget or behind an open circuit.
 */
export const ENVIRONMENT_REFUSAL_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "configuration_error",
  "dns_failed",
  "provider_unconfigured",
  "provider_unverified",
  "provider_unavailable",
  "provider_auth_failed",
  "provider_capacity",
  "budget_exhausted",
  "circuit_open",
]);

/**
 * Whether a BLOCKED receipt is errand's fault and proves nothing was done: refused for one of the
 * environment codes before any browser opened (no page was reached, no step ran, the mutation
 * boundary not crossed). Such an operation runs again when the same request is submitted again
 * under the same operationId (submitOperation); every other refusal stays final.
 */
export function isEnvironmentRefusal(receipt: Receipt): boolean {
  const code = receipt.error?.code;
  return (
    receipt.status === "BLOCKED" &&
    code !== undefined &&
    ENVIRONMENT_REFUSAL_CODES.has(code) &&
    receipt.mutationBoundary === "not_crossed" &&
    receipt.finalUrl === null &&
    receipt.steps.every((step) => step.status === "skipped")
  );
}
