import type { BrowserProvider } from "../providers/providerTypes.js";
import type { ProviderStore } from "../store/ProviderStore.js";
import { periodEndMs, periodStartMs } from "./budgetPeriod.js";
import { describeProvider } from "./describeProvider.js";
import type { ProviderFacts, ProviderStatus } from "./describeProvider.js";
import type { RoutableProvider, RoutingConfig } from "./routingConfig.js";

/** Reads what the router knows about every provider: configuration, activation, breaker, usage in the budget's period. */
export async function gatherFacts(
  store: ProviderStore,
  config: RoutingConfig,
  providers: Readonly<Partial<Record<RoutableProvider, Pick<BrowserProvider, "missingConfiguration">>>>,
  nowMs: number,
): Promise<Map<RoutableProvider, ProviderFacts>> {
  const facts = new Map<RoutableProvider, ProviderFacts>();
  for (const [name, provider] of Object.entries(providers) as [RoutableProvider, Pick<BrowserProvider, "missingConfiguration"> | undefined][]) {
    if (provider === undefined) continue;
    const cap = name === "local" ? null : config.budgets[name];
    const [record, breaker, usage] = await Promise.all([
      store.readProviderState(name),
      store.readBreaker(name),
      cap === null ? Promise.resolve(null) : store.readUsage(name, periodStartMs(cap, nowMs)),
    ]);
    facts.set(name, {
      name,
      kind: name === "local" ? "local" : "cloud",
      missing: provider.missingConfiguration(),
      record,
      breaker,
      usage,
      cap,
      concurrency: name === "local" ? null : config.concurrency[name],
    });
  }
  return facts;
}

/**
 * Every provider's state and why, cloud providers first in routing order, for `errand provider
 * list` and `errand status`. `nextBudgetMs` is the session a default task would ask for.
 */
export async function listProviderStatuses(
  store: ProviderStore,
  config: RoutingConfig,
  providers: Readonly<Partial<Record<RoutableProvider, Pick<BrowserProvider, "missingConfiguration">>>>,
  nextBudgetMs: number,
): Promise<ProviderStatus[]> {
  const now = await store.now();
  const facts = await gatherFacts(store, config, providers, now);
  const ordered = [...config.order, ...(Object.keys(providers) as RoutableProvider[])].filter((name, index, all) => all.indexOf(name) === index);
  return ordered.flatMap((name) => {
    const found = facts.get(name);
    return found === undefined ? [] : [describeProvider(found, now, nextBudgetMs)];
  });
}

/** One cloud provider's usage against its cap, for `errand status`. */
export interface UsageAgainstCap {
  provider: string;
  unit: string;
  used: number;
  /** Held by live sessions (the most each may cost). */
  reserved: number;
  limit: number;
  period: "month" | "total";
  /** When the period ends (ISO), null for a one-time credit. */
  periodEnd: string | null;
  sessions: number;
  sessionSeconds: number;
  liveSlots: number;
  concurrency: number;
}

/** Usage against caps for every cloud provider in the routing configuration (no adapter is loaded). */
export async function usageAgainstCaps(store: ProviderStore, config: RoutingConfig): Promise<UsageAgainstCap[]> {
  const now = await store.now();
  const result: UsageAgainstCap[] = [];
  for (const name of Object.keys(config.budgets) as (keyof RoutingConfig["budgets"])[]) {
    const cap = config.budgets[name];
    const usage = await store.readUsage(name, periodStartMs(cap, now));
    const end = periodEndMs(cap, now);
    result.push({
      provider: name,
      unit: cap.unit,
      used: round(usage.amount),
      reserved: round(usage.reserved),
      limit: round(cap.limit),
      period: cap.period,
      periodEnd: end === null ? null : new Date(end).toISOString(),
      sessions: usage.sessions,
      sessionSeconds: Math.round(usage.sessionMs / 1000),
      liveSlots: usage.liveSlots,
      concurrency: config.concurrency[name],
    });
  }
  return result;
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
