import type { Receipt } from "../receipt/receiptTypes.js";
import type { Task } from "../task/taskTypes.js";
import { budgetReason, budgetWouldPass, circuitReason, circuitRefuses, unverifiedReason } from "./describeProvider.js";
import type { ProviderFacts } from "./describeProvider.js";
import type { RoutableProvider, RoutingConfig } from "./routingConfig.js";

/** Why the router passed over a provider. `transient` skips (a full cap, a 429 back-off) may clear while a task waits. */
export interface Skip {
  provider: RoutableProvider;
  code: "provider_unconfigured" | "provider_unverified" | "circuit_open" | "budget_exhausted" | "provider_capacity";
  reason: string;
  transient: boolean;
}

export type RouteStep = { kind: "try"; provider: RoutableProvider } | { kind: "skip"; skip: Skip };

export interface RoutePlan {
  /** The task named its provider: it runs there or nowhere, and never falls back. */
  pinned: boolean;
  /** Each provider considered, in order: try it (slot and breaker permitting) or skip it, and why. */
  steps: RouteStep[];
}

/**
 * The providers a task may use, in order, and those passed over and why. Pure: it decides from a
 * snapshot; the slot and the breaker are then taken atomically by the router, which may still
 * skip a provider that filled up in between.
 *
 * - A task naming a provider (not "auto") is pinned: only that provider is considered, whether
 *   verified or not (this is how `errand provider smoke` reaches an UNVERIFIED provider), and a
 *   missing credential is left to the executor, which refuses it in its own words.
 * - "auto" follows config.order. Cloud providers must be configured and verified (their latest
 *   smoke PASSed). The local provider is used alone when no cloud provider in the order is
 *   configured; otherwise it ends the route (where the order does not name it elsewhere), passed
 *   over only when it has no Chromium, so a cloud credential whose smoke has not passed yet does
 *   not block every task.
 * - Every provider is passed over while its circuit refuses, while a 429 asked errand to wait, when
 *   another session could pass its budget, or when all its slots are held.
 */
export function planRoute(task: Task, config: RoutingConfig, facts: ReadonlyMap<RoutableProvider, ProviderFacts>, nowMs: number, budgetMs: number): RoutePlan {
  const factsOf = (name: RoutableProvider): ProviderFacts => {
    const found = facts.get(name);
    if (found === undefined) throw new Error(`no facts for provider ${name}`);
    return found;
  };
  if (task.provider !== "auto") {
    const step = availability(factsOf(task.provider), nowMs, budgetMs);
    return { pinned: true, steps: [step] };
  }
  const cloudConfigured = config.order.some((name) => name !== "local" && factsOf(name).missing === null);
  if (!cloudConfigured && !config.order.includes("local")) {
    return { pinned: false, steps: [availability(factsOf("local"), nowMs, budgetMs)] };
  }
  const steps = config.order.map((name): RouteStep => {
    const provider = factsOf(name);
    if (provider.kind === "cloud") {
      if (provider.missing !== null) return skip(name, "provider_unconfigured", provider.missing, false);
      if (provider.record.verifiedMs === null) return skip(name, "provider_unverified", unverifiedReason(provider), false);
    }
    return availability(provider, nowMs, budgetMs);
  });
  if (!config.order.includes("local")) {
    // A credential is not a verdict: auto routing ends with the local browser where there is one,
    // so an unverified (or failing) cloud provider never strands a task that local Chromium can run.
    const local = factsOf("local");
    steps.push(local.missing === null ? availability(local, nowMs, budgetMs) : skip("local", "provider_unconfigured", local.missing, false));
  }
  return { pinned: false, steps };
}

/** The checks every provider passes, pinned or not: circuit, 429 back-off, budget, slots. */
function availability(provider: ProviderFacts, nowMs: number, budgetMs: number): RouteStep {
  const name = provider.name;
  if (circuitRefuses(provider.breaker, nowMs)) return skip(name, "circuit_open", circuitReason(provider.breaker, nowMs).reason, false);
  const backoff = provider.record.backoffUntilMs;
  if (backoff !== null && backoff > nowMs) {
    return skip(
      name,
      "provider_capacity",
      `${name} answered 429 (${provider.record.backoffReason ?? "at capacity"}); errand leaves it alone until ${new Date(backoff).toISOString()}.`,
      true,
    );
  }
  if (provider.kind === "cloud") {
    if (budgetWouldPass(provider, budgetMs)) return skip(name, "budget_exhausted", budgetReason(provider, budgetMs, nowMs).reason, false);
    const cap = provider.concurrency ?? 0;
    const inUse = provider.usage?.liveSlots ?? 0;
    if (inUse >= cap) return skip(name, "provider_capacity", atCapReason(name, cap), true);
  }
  return { kind: "try", provider: name };
}

export function atCapReason(name: string, cap: number): string {
  if (cap === 0) return `${name}'s concurrency is set to 0 (ERRAND_CONCURRENCY_${name.toUpperCase()}), so errand never starts a session there.`;
  return `all ${cap} of ${name}'s concurrency slots are held by running attempts (ERRAND_CONCURRENCY_${name.toUpperCase()}).`;
}

function skip(provider: RoutableProvider, code: Skip["code"], reason: string, transient: boolean): RouteStep {
  return { kind: "skip", skip: { provider, code, reason, transient } };
}

/**
 * Whether a receipt lets the router try the next provider for the same attempt: only a read_only
 * task that is not pinned, and only after a provider-class failure (provider_unavailable: 5xx,
 * connect failure, dropped or crashed browser) or a 429 at create (provider_capacity: nothing ran,
 * as with any other skip). A write never moves: it ran, or was refused, on one provider only.
 */
export function mayFallBack(task: Task, pinned: boolean, receipt: Receipt): boolean {
  if (pinned || task.risk !== "read_only") return false;
  const code = receipt.error?.code;
  return code === "provider_unavailable" || code === "provider_capacity";
}

/** The code a receipt carries when no provider could take the task: the first that says more than "not configured". */
export function blockingSkip(skips: readonly Skip[]): Skip | undefined {
  return skips.find((s) => s.code !== "provider_unconfigured") ?? skips[0];
}
