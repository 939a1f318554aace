import { ConfigError } from "../config/runtimeConfig.js";
import { HOUR, MINUTE, SECOND } from "../config/units.js";
import { CLOUD_PROVIDER_NAMES, isCloudProviderName } from "../providers/providerNames.js";
import type { CloudProviderName } from "../providers/providerNames.js";
import { KERNEL_USD_PER_GB_SECOND } from "../providers/usageEstimate.js";
import type { UsageEstimate } from "../providers/usageEstimate.js";
import { resolveProviderModes } from "./providerModes.js";
import type { ProviderMode } from "./providerModes.js";

/** A provider the router can send a task to: a cloud provider or the local Chromium. */
export type RoutableProvider = CloudProviderName | "local";

/**
 * A spending cap in the provider's own billing unit. "month" caps reset on the first of each
 * calendar month (UTC); "total" caps (Steel's one-time credit) never reset.
 */
export interface BudgetCap {
  unit: UsageEstimate["unit"];
  limit: number;
  period: "month" | "total";
  /** Where the default comes from, or which variable set it, for `errand provider list`. */
  source: string;
  /** The same cap in US dollars, where the provider prices its unit (Kernel). */
  usdLimit?: number;
}

/**
 * How the router chooses providers. Resolved from the environment over the free-tier defaults:
 * - ERRAND_PROVIDER_ORDER: comma-separated preference for `provider: "auto"` (default
 *   kernel,browserless,browserbase,steel). "local" may be listed; otherwise the local provider is
 *   used only when a task names it or when no cloud provider in the order is configured.
 * - ERRAND_CONCURRENCY_<PROVIDER>: live sessions errand allows itself at once (defaults: the free
 *   tiers' concurrency, Kernel 5, Browserless 2, Browserbase 1, Steel 10).
 * - ERRAND_BUDGET_KERNEL_USD (default 5, a month), ERRAND_BUDGET_BROWSERLESS_UNITS (1000 a month),
 *   ERRAND_BUDGET_BROWSERBASE_MINUTES (60 a month), ERRAND_BUDGET_STEEL_MINUTES (18000 in all:
 *   the $30 one-time credit at $0.10 per browser-hour). 0 turns a provider off.
 * - ERRAND_BACKOFF_MS: how long a 429 without Retry-After keeps a provider skipped (default 30 s).
 * - ERRAND_SLOT_WAIT_MS: how long a task waits for a slot when every provider it may use is at its
 *   cap or backing off (default 10 s, never more than a third of the task's budget).
 * - ERRAND_MODE_<PROVIDER>: cdp (default) or program (providerModes.ts).
 */
export interface RoutingConfig {
  order: RoutableProvider[];
  concurrency: Record<CloudProviderName, number>;
  budgets: Record<CloudProviderName, BudgetCap>;
  backoffDefaultMs: number;
  slotWaitMs: number;
  /** How each cloud provider is driven (ERRAND_MODE_<PROVIDER>). */
  modes: Record<CloudProviderName, ProviderMode>;
}

export const DEFAULT_PROVIDER_ORDER: readonly CloudProviderName[] = CLOUD_PROVIDER_NAMES;
export const DEFAULT_CONCURRENCY: Readonly<Record<CloudProviderName, number>> = Object.freeze({ kernel: 5, browserless: 2, browserbase: 1, steel: 10 });
export const DEFAULT_BACKOFF_MS = 30 * SECOND;
export const DEFAULT_SLOT_WAIT_MS = 10 * SECOND;
/** Steel's Launch plan: a $30 one-time credit, browser time at $0.10 an hour. */
export const STEEL_CREDIT_MINUTES = (30 / 0.1) * (HOUR / MINUTE);

export function defaultBudgets(): Record<CloudProviderName, BudgetCap> {
  return {
    kernel: kernelCap(5, "Kernel Developer plan: $5 of usage credit a month"),
    browserless: { unit: "browserless_unit", limit: 1000, period: "month", source: "Browserless free plan: 1,000 units a month" },
    browserbase: { unit: "browser_minute", limit: 60, period: "month", source: "Browserbase free plan: one browser-hour a month" },
    steel: { unit: "browser_minute", limit: STEEL_CREDIT_MINUTES, period: "total", source: "Steel Launch plan: $30 one-time credit at $0.10 per browser-hour" },
  };
}

function kernelCap(usd: number, source: string): BudgetCap {
  return { unit: "gb_second", limit: Math.floor(usd / KERNEL_USD_PER_GB_SECOND), period: "month", source, usdLimit: usd };
}

const BUDGET_VARIABLES: Record<CloudProviderName, string> = {
  kernel: "ERRAND_BUDGET_KERNEL_USD",
  browserless: "ERRAND_BUDGET_BROWSERLESS_UNITS",
  browserbase: "ERRAND_BUDGET_BROWSERBASE_MINUTES",
  steel: "ERRAND_BUDGET_STEEL_MINUTES",
};

/** Resolves the routing configuration; throws ConfigError naming the variable for a value it cannot use. */
export function resolveRoutingConfig(env: NodeJS.ProcessEnv): RoutingConfig {
  const budgets = defaultBudgets();
  const concurrency = { ...DEFAULT_CONCURRENCY };
  for (const name of CLOUD_PROVIDER_NAMES) {
    const cap = readNumber(env, `ERRAND_CONCURRENCY_${name.toUpperCase()}`, { integer: true, max: 10_000 });
    if (cap !== undefined) concurrency[name] = cap;
    const variable = BUDGET_VARIABLES[name];
    const limit = readNumber(env, variable, { integer: name !== "kernel", max: 1e9 });
    if (limit !== undefined)
      budgets[name] = name === "kernel" ? kernelCap(limit, `${variable}=${limit}`) : { ...budgets[name], limit, source: `${variable}=${limit}` };
  }
  return {
    order: readOrder(env),
    concurrency,
    budgets,
    backoffDefaultMs: readNumber(env, "ERRAND_BACKOFF_MS", { integer: true, max: HOUR }) ?? DEFAULT_BACKOFF_MS,
    slotWaitMs: readNumber(env, "ERRAND_SLOT_WAIT_MS", { integer: true, max: HOUR }) ?? DEFAULT_SLOT_WAIT_MS,
    modes: resolveProviderModes(env),
  };
}

function readOrder(env: NodeJS.ProcessEnv): RoutableProvider[] {
  const raw = env["ERRAND_PROVIDER_ORDER"];
  if (raw === undefined || raw.trim() === "") return [...DEFAULT_PROVIDER_ORDER];
  const names = raw
    .split(",")
    .map((part) => part.trim().toLowerCase())
    .filter((part) => part !== "");
  const order: RoutableProvider[] = [];
  for (const name of names) {
    if (name !== "local" && !isCloudProviderName(name)) {
      throw new ConfigError(
        `ERRAND_PROVIDER_ORDER names "${name.slice(0, 40)}", which is not a provider: use ${[...CLOUD_PROVIDER_NAMES, "local"].join(", ")}.`,
      );
    }
    if (order.includes(name)) throw new ConfigError(`ERRAND_PROVIDER_ORDER names "${name}" twice.`);
    order.push(name);
  }
  if (order.length === 0) throw new ConfigError("ERRAND_PROVIDER_ORDER is empty: name at least one provider, or unset it for the default order.");
  return order;
}

function readNumber(env: NodeJS.ProcessEnv, variable: string, rule: { integer: boolean; max: number }): number | undefined {
  const raw = env[variable];
  if (raw === undefined || raw.trim() === "") return undefined;
  const text = raw.trim();
  const value = (rule.integer ? /^\d{1,12}$/ : /^\d{1,12}(\.\d{1,6})?$/).test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(value) || value < 0 || value > rule.max) {
    throw new ConfigError(`${variable}="${raw.slice(0, 40)}" is not usable: give ${rule.integer ? "a whole number" : "a number"} from 0 to ${rule.max}.`);
  }
  return value;
}
