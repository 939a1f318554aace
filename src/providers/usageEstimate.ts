import { MINUTE, SECOND } from "../config/units.js";

/**
 * What one attempt's session is expected to cost, in the provider's own billing unit, computed
 * from the session time errand measured (create call to release, so it errs high). These are
 * estimates: the provider's meter is the truth, and the rules below are the published ones as of
 * the reference in docs/PROVIDER_CENSUS.md. Add-ons (proxy bytes, CAPTCHA solves) are not counted.
 */
export interface UsageEstimate {
  provider: string;
  unit: "browserless_unit" | "gb_second" | "browser_minute";
  amount: number;
  /** Session time the amount was computed from (ms). */
  sessionMs: number;
  /**
   * True when even the rule is uncertain (Kernel bills active time only and errand cannot see
   * standby time); false when the amount follows the provider's published rounding rule exactly.
   */
  estimate: boolean;
  /** US dollars, only where the provider publishes a per-unit price that applies to every plan. */
  usd?: number;
}

/** Kernel's published price per GB-second of active browser time. */
export const KERNEL_USD_PER_GB_SECOND = 0.0000166667;
/** Memory Kernel bills per browser: headless 1 GB, headful 8 GB. */
export const KERNEL_GB = { headless: 1, headful: 8 } as const;
/** Browserless bills one unit per started 30 s of browser time, per session. */
export const BROWSERLESS_UNIT_MS = 30 * SECOND;

/** Browserless: 30-second units, rounded up per session (31 s = 2 units); no session, no units. */
export function estimateBrowserlessUsage(sessionMs: number): UsageEstimate {
  const ms = clean(sessionMs);
  return { provider: "browserless", unit: "browserless_unit", amount: ms === 0 ? 0 : Math.ceil(ms / BROWSERLESS_UNIT_MS), sessionMs: ms, estimate: false };
}

/** Kernel: GB-seconds (whole seconds rounded up × the browser's memory), marked as an estimate. */
export function estimateKernelUsage(sessionMs: number, headless: boolean): UsageEstimate {
  const ms = clean(sessionMs);
  const gbSeconds = Math.ceil(ms / SECOND) * (headless ? KERNEL_GB.headless : KERNEL_GB.headful);
  return { provider: "kernel", unit: "gb_second", amount: gbSeconds, sessionMs: ms, estimate: true, usd: round6(gbSeconds * KERNEL_USD_PER_GB_SECOND) };
}

/** Browserbase: browser minutes, each session billed for at least one minute, rounded up per minute. */
export function estimateBrowserbaseUsage(sessionMs: number): UsageEstimate {
  const ms = clean(sessionMs);
  return { provider: "browserbase", unit: "browser_minute", amount: ms === 0 ? 0 : Math.max(1, Math.ceil(ms / MINUTE)), sessionMs: ms, estimate: false };
}

/** Steel: browser minutes, metered per minute and rounded up. */
export function estimateSteelUsage(sessionMs: number): UsageEstimate {
  const ms = clean(sessionMs);
  return { provider: "steel", unit: "browser_minute", amount: Math.ceil(ms / MINUTE), sessionMs: ms, estimate: false };
}

/**
 * The estimate for a provider by name, or null for one that bills nothing errand can count (local).
 * `headless` matters only to Kernel (default true, as the adapter creates them).
 */
export function estimateUsage(provider: string, sessionMs: number, options: { headless?: boolean } = {}): UsageEstimate | null {
  switch (provider) {
    case "browserless":
      return estimateBrowserlessUsage(sessionMs);
    case "kernel":
      return estimateKernelUsage(sessionMs, options.headless ?? true);
    case "browserbase":
      return estimateBrowserbaseUsage(sessionMs);
    case "steel":
      return estimateSteelUsage(sessionMs);
    default:
      return null;
  }
}

function clean(ms: number): number {
  return Number.isFinite(ms) && ms > 0 ? Math.ceil(ms) : 0;
}

function round6(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
