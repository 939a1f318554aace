import { DEFAULT_SESSION_GRACE_MS } from "../providers/cloudProviderOptions.js";
import { estimateUsage } from "../providers/usageEstimate.js";
import type { BudgetCap } from "./routingConfig.js";

/** Where a cap's period began: the first of this month (UTC) for monthly caps, the epoch for one-time credits. */
export function periodStartMs(cap: BudgetCap, nowMs: number): number {
  if (cap.period === "total") return 0;
  const now = new Date(nowMs);
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
}

/** When a cap's period ends (the first of next month, UTC), or null for a one-time credit. */
export function periodEndMs(cap: BudgetCap, nowMs: number): number | null {
  if (cap.period === "total") return null;
  const now = new Date(nowMs);
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
}

/**
 * The most one session of a task with this budget can cost, in the provider's unit: the provider
 * ends a session errand abandoned at its own timeout, which errand sets to the budget plus the
 * session grace, so that is the longest errand can be billed for.
 */
export function worstCaseUsage(provider: string, budgetMs: number): number {
  return estimateUsage(provider, budgetMs + DEFAULT_SESSION_GRACE_MS)?.amount ?? 0;
}
