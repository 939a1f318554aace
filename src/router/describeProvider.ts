import { KERNEL_USD_PER_GB_SECOND } from "../providers/usageEstimate.js";
import type { UntrustedText } from "../receipt/untrustedText.js";
import { untrusted } from "../receipt/untrustedText.js";
import type { ProviderStateRecord, UsageTotals } from "../store/ProviderStore.js";
import type { BreakerRecord } from "../store/Store.js";
import { periodEndMs, worstCaseUsage } from "./budgetPeriod.js";
import type { BudgetCap, RoutableProvider } from "./routingConfig.js";

/**
 * A provider's state, derived (never stored) from what the store knows:
 *
 *   UNCONFIGURED     no credential (cloud) or no Chromium (local)
 *   CIRCUIT_OPEN     configured, but its breaker is OPEN or a half-open probe is in flight
 *   BUDGET_EXHAUSTED configured, but another session could pass its cap
 *   OPERATIONAL      configured and its latest smoke PASSed (local: configured)
 *   UNVERIFIED       configured, but it never passed a smoke, a later smoke did not PASS, or it
 *                    refused errand's credential since
 *
 * Earlier lines win: an open circuit on a verified provider shows CIRCUIT_OPEN (with `verified`
 * still true, so it is OPERATIONAL again once the circuit closes).
 */
export const PROVIDER_STATES = ["UNCONFIGURED", "UNVERIFIED", "OPERATIONAL", "CIRCUIT_OPEN", "BUDGET_EXHAUSTED"] as const;
export type ProviderStateName = (typeof PROVIDER_STATES)[number];

/** Everything known about one provider at one moment. */
export interface ProviderFacts {
  name: RoutableProvider;
  kind: "cloud" | "local";
  /** What configuration is missing, or null. */
  missing: string | null;
  record: ProviderStateRecord;
  breaker: BreakerRecord;
  /** Cloud providers: booked usage in the cap's period and live slots. */
  usage: UsageTotals | null;
  cap: BudgetCap | null;
  concurrency: number | null;
}

export interface ProviderStatus {
  name: string;
  kind: "cloud" | "local";
  state: ProviderStateName;
  /** Why, in words for whoever must act. */
  reason: string;
  /** When CIRCUIT_OPEN or BUDGET_EXHAUSTED ends (ISO), or null when it does not end by itself. */
  until: string | null;
  configured: boolean;
  /** The latest smoke PASSed and no credential refusal came after it. */
  verified: boolean;
  lastSmoke: { status: string; operationId: string | null; code: string | null; at: string } | null;
  /**
   * The provider's latest refusal of errand's credential (401/403): when, and the words recorded
   * then (errand's message and the provider's answer, which may quote a page) in the untrusted
   * wrapper. errand's own sentence about it is `reason`.
   */
  authFailure: { at: string; reason: UntrustedText } | null;
  circuit: { state: string; failures: number; openUntil: string | null };
  /** A 429 asked errand to wait until then. */
  backoffUntil: string | null;
  concurrency: { cap: number; inUse: number } | null;
  budget: BudgetStatus | null;
}

export interface BudgetStatus {
  unit: string;
  limit: number;
  used: number;
  /** Held by live sessions (the most each may cost). */
  reserved: number;
  period: "month" | "total";
  /** When the period ends (ISO), null for a one-time credit. */
  periodEnd: string | null;
  /** Kernel: the cap, and what is used or held, in US dollars. */
  usdLimit?: number;
  usd?: number;
  source: string;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** Whether one more session of `budgetMs` could pass the cap, counting booked usage and live reservations. */
export function budgetWouldPass(facts: Pick<ProviderFacts, "name" | "usage" | "cap">, budgetMs: number): boolean {
  if (facts.cap === null || facts.usage === null) return false;
  return facts.usage.amount + facts.usage.reserved + worstCaseUsage(facts.name, budgetMs) > facts.cap.limit;
}

/** True when a half-open probe is still in flight or an open circuit's cooldown has not ended. */
export function circuitRefuses(breaker: BreakerRecord, nowMs: number): boolean {
  if (breaker.state === "OPEN") return nowMs < (breaker.openUntilMs ?? 0);
  if (breaker.state === "HALF_OPEN") return nowMs < (breaker.probeExpiresMs ?? 0);
  return false;
}

/** Explains an open circuit: how many failures, and when a probe may go through. */
export function circuitReason(breaker: BreakerRecord, nowMs: number): { reason: string; untilMs: number | null } {
  if (breaker.state === "HALF_OPEN") {
    return { reason: `${breaker.provider} failed repeatedly; one probe is in flight and decides whether its circuit closes.`, untilMs: breaker.probeExpiresMs };
  }
  const until = breaker.openUntilMs ?? nowMs;
  return {
    reason: `${breaker.failures} consecutive provider failures opened ${breaker.provider}'s circuit; it lets one probe through at ${new Date(until).toISOString()}.`,
    untilMs: until,
  };
}

/** Describes the budget: what was used against the cap and why another session would not fit. */
export function budgetReason(
  facts: Pick<ProviderFacts, "name" | "usage" | "cap">,
  budgetMs: number,
  nowMs: number,
): { reason: string; untilMs: number | null } {
  const cap = facts.cap;
  const usage = facts.usage;
  if (cap === null || usage === null) return { reason: `${facts.name} has no budget.`, untilMs: null };
  const end = periodEndMs(cap, nowMs);
  const period = cap.period === "month" ? "this month" : "in all (a one-time credit)";
  const held = usage.reserved > 0 ? ` plus ${round(usage.reserved)} held by live sessions` : "";
  const next = `another session of this budget could cost up to ${round(worstCaseUsage(facts.name, budgetMs))}`;
  const resets =
    end === null
      ? `; it does not reset: raise the cap (${cap.source}) only once the provider has credit`
      : `; the budget resets at ${new Date(end).toISOString()}`;
  return { reason: `${facts.name} used ${round(usage.amount)} of ${round(cap.limit)} ${cap.unit} ${period}${held}; ${next}${resets}.`, untilMs: end };
}

/** The state of one provider and why, for `errand provider list` and the router's skip reasons. */
export function describeProvider(facts: ProviderFacts, nowMs: number, nextBudgetMs: number): ProviderStatus {
  const { record, breaker } = facts;
  const verified = facts.kind === "local" ? facts.missing === null : record.verifiedMs !== null;
  const details = {
    configured: facts.missing === null,
    verified,
    lastSmoke:
      record.smokeStatus === null || record.smokeMs === null
        ? null
        : { status: record.smokeStatus, operationId: record.smokeOperationId, code: record.smokeErrorCode, at: new Date(record.smokeMs).toISOString() },
    // Wrapped when shown, not when recorded: both stores keep the words in the plain text column
    // they always had, so rows recorded before this rule read exactly like new ones (no migration,
    // no upgrade step), and this is the one reader of authReason, so no path shows them unwrapped.
    authFailure: record.authFailedMs === null ? null : { at: new Date(record.authFailedMs).toISOString(), reason: untrusted(record.authReason ?? "") },
    circuit: { state: breaker.state, failures: breaker.failures, openUntil: iso(breaker.openUntilMs) },
    backoffUntil: record.backoffUntilMs !== null && record.backoffUntilMs > nowMs ? iso(record.backoffUntilMs) : null,
    concurrency: facts.concurrency === null ? null : { cap: facts.concurrency, inUse: facts.usage?.liveSlots ?? 0 },
    budget: budgetStatus(facts, nowMs),
  };
  const status = (state: ProviderStateName, reason: string, until: string | null): ProviderStatus => ({
    name: facts.name,
    kind: facts.kind,
    state,
    reason,
    until,
    ...details,
  });
  if (facts.missing !== null) return status("UNCONFIGURED", facts.missing, null);
  if (circuitRefuses(breaker, nowMs)) {
    const circuit = circuitReason(breaker, nowMs);
    return status("CIRCUIT_OPEN", circuit.reason, iso(circuit.untilMs));
  }
  if (budgetWouldPass(facts, nextBudgetMs)) {
    const budget = budgetReason(facts, nextBudgetMs, nowMs);
    return status("BUDGET_EXHAUSTED", budget.reason, iso(budget.untilMs));
  }
  if (verified) {
    const reason =
      facts.kind === "local"
        ? "Chromium on this host, behind errand's egress filter; it needs no smoke."
        : `Its smoke PASSed at ${iso(record.verifiedMs) ?? ""} (operation ${record.smokeOperationId ?? "-"}).`;
    return status("OPERATIONAL", reason, null);
  }
  return status("UNVERIFIED", unverifiedReason(facts), null);
}

/**
 * Why a configured provider is not verified, with the command that verifies it, in errand's words
 * only: the recorded words of a refusal are not quoted (they may quote a page, and this sentence
 * reaches the plain `reason` of the provider list and the router's skips); `authFailure.reason`
 * shows them, wrapped.
 */
export function unverifiedReason(facts: Pick<ProviderFacts, "name" | "record">): string {
  const { record, name } = facts;
  const next = `run "errand provider smoke ${name}" to verify it.`;
  if (record.authFailedMs !== null && (record.smokeMs === null || record.authFailedMs >= record.smokeMs)) {
    return `${name} refused errand's credential (HTTP 401/403) at ${new Date(record.authFailedMs).toISOString()} (its answer is shown by "errand provider list"); fix the credential, then ${next}`;
  }
  if (record.smokeStatus !== null && record.smokeMs !== null) {
    return `The latest smoke on ${name} (${new Date(record.smokeMs).toISOString()}) ended ${record.smokeStatus}${record.smokeErrorCode === null ? "" : ` (${record.smokeErrorCode})`}, not PASS; ${next}`;
  }
  return `${name} is configured but has never passed a smoke; ${next}`;
}

function budgetStatus(facts: ProviderFacts, nowMs: number): BudgetStatus | null {
  const { cap, usage } = facts;
  if (cap === null || usage === null) return null;
  return {
    unit: cap.unit,
    limit: round(cap.limit),
    used: round(usage.amount),
    reserved: round(usage.reserved),
    period: cap.period,
    periodEnd: iso(periodEndMs(cap, nowMs)),
    ...(cap.usdLimit === undefined ? {} : { usdLimit: cap.usdLimit, usd: round((usage.amount + usage.reserved) * KERNEL_USD_PER_GB_SECOND) }),
    source: cap.source,
  };
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
