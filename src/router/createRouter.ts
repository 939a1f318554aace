import { setTimeout as sleep } from "node:timers/promises";
import { SECOND } from "../config/units.js";
import type { ErrorCode } from "../errors/errorCodes.js";
import type { Admission, AdmittedTask, RefusedTask } from "../executor/admitTask.js";
import type { AttemptContext, AttemptOutcome, ExecuteTask } from "../executor/executeTaskTypes.js";
import { refusalOutcome } from "../executor/refusalOutcome.js";
import type { BrowserProvider } from "../providers/providerTypes.js";
import { estimateUsage } from "../providers/usageEstimate.js";
import type { FallbackRecord, Receipt } from "../receipt/receiptTypes.js";
import { untrusted } from "../receipt/untrustedText.js";
import { passBreaker, reportToBreaker } from "./breakerGate.js";
import type { BreakerPolicy } from "./circuitBreaker.js";
import { classifyOutcome } from "./classifyOutcome.js";
import type { ProviderStore, UsageEntry } from "../store/ProviderStore.js";
import type { Task } from "../task/taskTypes.js";
import { periodStartMs, worstCaseUsage } from "./budgetPeriod.js";
import { gatherFacts } from "./gatherFacts.js";
import { meterProvider } from "./meterProvider.js";
import { atCapReason, blockingSkip, mayFallBack, planRoute } from "./planRoute.js";
import type { Skip } from "./planRoute.js";
import type { RoutableProvider, RoutingConfig } from "./routingConfig.js";

/** Time a fallback needs to be worth starting: less than this left of the budget, the failure stands (ms). */
export const MIN_FALLBACK_MS = 5 * SECOND;
/**
 * How long a slot outlives the attempt's budget if its holder never releases it (ms): the
 * executor's hard stop, the cleanup bound and the provider-side grace errand gives every session,
 * after which the provider has ended an orphaned session by itself.
 */
export const SLOT_MARGIN_MS = 30 * SECOND;
/** Pause between looks for a free slot while waiting (ms). */
export const SLOT_POLL_MS = 250;
/** Longest back-off a 429's Retry-After can impose (ms). */
export const MAX_BACKOFF_MS = 15 * 60 * SECOND;

export interface RouterOptions {
  store: ProviderStore;
  config: RoutingConfig;
  /** Every provider the router may use, by name; "local" must be present. */
  providers: Readonly<Record<RoutableProvider, BrowserProvider>>;
  /**
   * The admission step (executor/admitTask with the operator's network policy and the owner's
   * secrets): called once per attempt, before any provider is chosen.
   */
  admit: (task: Task) => Promise<Admission>;
  /** Builds the executor (guards, step interpreter) that runs one admitted attempt on one provider; called per attempt, so it must be cheap. */
  executorFor: (provider: BrowserProvider) => ExecuteTask;
  /** The attempt budget when the task sets no timeouts.taskMs (ms). */
  defaultTaskTimeoutMs: number;
  /** The breaker thresholds (breakerPolicy of errand's configuration). */
  breaker: BreakerPolicy;
  /** Names this process in the slots it holds. */
  holder: string;
}

/**
 * The provider router: one attempt of a task, on the provider the rules choose.
 *
 * 0. The admission step refuses what must be refused before any browser (approvals, secrets,
 *    allowedHosts, the target's preflight): BLOCKED, no provider chosen, no slot or breaker touched.
 *    An admitted task carries the admission's answer to the executor, which does not decide again.
 * 1. planRoute orders the candidates and passes over the unusable ones (unconfigured, unverified,
 *    circuit open, 429 back-off, budget, full slots), each named with its reason in `fallback`.
 * 2. For each candidate in turn, a concurrency slot is taken in the store (atomically with the
 *    budget check, so caps hold across runner processes), then the breaker admits it (or hands it
 *    the half-open probe), then the executor runs the attempt on it.
 * 3. After it: usage is booked with the slot's release, the breaker hears the outcome (only
 *    provider_unavailable counts against a provider; 401/403 and 429 do not), a 429 sets the
 *    back-off, a 401/403 un-verifies the provider.
 * 4. A read_only task that is not pinned moves on to the next candidate after provider_unavailable
 *    or a 429, with what is left of its budget; a write never moves (planRoute.mayFallBack).
 * 5. When every candidate was passed over for a full cap or a back-off only, the task waits for a
 *    slot (ERRAND_SLOT_WAIT_MS, at most a third of its budget) and looks again; otherwise it is
 *    BLOCKED with the most telling skip's code, nothing having run.
 *
 * The breakers live here only: the runner neither gates nor reports them.
 */
export function createRouter(options: RouterOptions): ExecuteTask {
  return (task, context) => route(options, task, context);
}

async function route(options: RouterOptions, task: Task, context: AttemptContext): Promise<AttemptOutcome> {
  const { store, config, executorFor } = options;
  const startedAt = new Date();
  const taskMs = task.timeouts?.taskMs ?? options.defaultTaskTimeoutMs;
  const deadline = startedAt.getTime() + taskMs;
  const waitUntil = startedAt.getTime() + Math.min(config.slotWaitMs, Math.floor(taskMs / 3));
  const records: FallbackRecord[] = [];
  let waitedNote = false;

  const admission = await options.admit(task);
  if (!admission.admitted) return refused(task, context, startedAt, admission);
  const admitted: AttemptContext = { ...context, admitted: admission };

  for (;;) {
    const now = await store.now();
    const budgetMs = Math.max(1, deadline - Date.now());
    const plan = planRoute(task, config, await gatherFacts(store, config, options.providers, now), now, budgetMs);
    const skips: Skip[] = [];
    let failed: AttemptOutcome | null = null;

    for (const [index, step] of plan.steps.entries()) {
      if (step.kind === "skip") {
        skips.push(step.skip);
        continue;
      }
      const name = step.provider;
      const remaining = deadline - Date.now();
      if (failed !== null && remaining < MIN_FALLBACK_MS) break;
      const provider = options.providers[name];
      let slotId: string | null = null;
      if (name !== "local") {
        const grant = await takeSlot(options, name, task, remaining);
        if (grant.kind !== "acquired") {
          skips.push(grant.skip);
          continue;
        }
        slotId = grant.slotId;
      }
      const gate = await passBreaker(store, name, options.breaker);
      if (!gate.admitted) {
        if (slotId !== null) await store.releaseSlot(slotId, null);
        const when = gate.retryAtMs === null ? "after the probe in flight reports" : `at ${new Date(gate.retryAtMs).toISOString()}`;
        skips.push({
          provider: name,
          code: "circuit_open",
          reason: `${name} failed repeatedly, so its circuit is open; it lets one probe through ${when}.`,
          transient: false,
        });
        continue;
      }

      if (failed !== null) context.onProgress?.({ kind: "note", message: `falling back to ${name} (${remaining} ms of the budget left)` });
      const budgeted: Task = remaining === taskMs ? task : { ...task, timeouts: { ...task.timeouts, taskMs: Math.max(1, remaining) } };
      const metered = meterProvider(provider);
      let outcome: AttemptOutcome;
      try {
        outcome = await executorFor(metered.provider)(budgeted, admitted);
      } finally {
        if (slotId !== null) await store.releaseSlot(slotId, usageEntry(name, task, context, metered.meter.opened(), metered.meter.sessionMs()));
      }
      await learnFrom(options, name, outcome.receipt, metered.meter.openError(), await store.now());
      await reportToBreaker(store, name, classifyOutcome(outcome.receipt), options.breaker, gate.probeToken);

      for (const skip of skips.splice(0)) records.push(skipRecord(skip));
      const later = plan.steps.slice(index + 1).some((s) => s.kind === "try");
      if (later && !context.signal.aborted && mayFallBack(task, plan.pinned, outcome.receipt)) {
        records.push({ provider: name, outcome: "failed", ...errorFields(outcome.receipt) });
        failed = outcome;
        continue;
      }
      records.push({ provider: name, outcome: "used", ...errorFields(outcome.receipt) });
      return withFallback(outcome, records);
    }

    if (failed !== null) {
      // Every later candidate was passed over (or time ran out): the last failure is the answer.
      for (const skip of skips) records.push(skipRecord(skip));
      const last = records.findLast((r) => r.outcome === "failed");
      if (last !== undefined) last.outcome = "used";
      return withFallback(failed, records);
    }

    // A full cap or a back-off may clear in a moment; anything else will not.
    if (skips.some((s) => s.transient) && Date.now() + SLOT_POLL_MS < waitUntil && !context.signal.aborted) {
      if (!waitedNote) context.onProgress?.({ kind: "note", message: "every usable provider is at its concurrency cap or backing off; waiting for a slot" });
      waitedNote = true;
      await sleep(SLOT_POLL_MS, undefined, { signal: context.signal }).catch(() => undefined);
      continue;
    }
    for (const skip of skips) records.push(skipRecord(skip));
    return nothingRan(task, context, admission, startedAt, plan.pinned, skips, records);
  }
}

type SlotTake = { kind: "acquired"; slotId: string } | { kind: "skipped"; skip: Skip };

/** Takes a concurrency slot for a cloud provider, with its worst-case cost held against the budget. */
async function takeSlot(options: RouterOptions, name: Exclude<RoutableProvider, "local">, task: Task, remainingMs: number): Promise<SlotTake> {
  const { store, config } = options;
  const now = await store.now();
  const cap = config.budgets[name];
  const reserve = worstCaseUsage(name, remainingMs);
  const grant = await store.acquireSlot({
    provider: name,
    holder: options.holder,
    operationId: task.operationId,
    cap: config.concurrency[name],
    expiresMs: now + remainingMs + SLOT_MARGIN_MS,
    reserve,
    unit: cap.unit,
    budget: { limit: cap.limit, sinceMs: periodStartMs(cap, now) },
  });
  if (grant.kind === "acquired") return grant;
  if (grant.kind === "at_cap")
    return { kind: "skipped", skip: { provider: name, code: "provider_capacity", reason: atCapReason(name, config.concurrency[name]), transient: true } };
  const held = grant.reserved > 0 ? ` plus ${grant.reserved} held by live sessions` : "";
  return {
    kind: "skipped",
    skip: {
      provider: name,
      code: "budget_exhausted",
      reason: `${name} used ${grant.used} of ${grant.limit} ${cap.unit} ${cap.period === "month" ? "this month" : "in all"}${held}; this task's session could cost up to ${reserve}, which would pass the cap (${cap.source}).`,
      transient: false,
    },
  };
}

/** What one attempt teaches the router about its provider: a 429 starts a back-off; a 401/403 un-verifies it. */
async function learnFrom(
  options: RouterOptions,
  name: RoutableProvider,
  receipt: Receipt,
  openError: { code: string; retryAfterSeconds?: number; message: string } | null,
  nowMs: number,
): Promise<void> {
  const code = openError?.code ?? receipt.error?.code;
  if (code === "provider_capacity") {
    const asked = openError?.retryAfterSeconds;
    const waitMs = Math.min(MAX_BACKOFF_MS, asked === undefined ? options.config.backoffDefaultMs : Math.ceil(asked * SECOND));
    const reason = asked === undefined ? `no Retry-After; errand waits its default ${options.config.backoffDefaultMs} ms` : `Retry-After ${asked} s`;
    await options.store.recordBackoff(name, nowMs + waitMs, reason);
  } else if (code === "provider_auth_failed" && name !== "local") {
    // For the owner's provider list: errand's message and the provider's own words (error.detail), as before the split.
    const said = receipt.error === null ? undefined : [receipt.error.message, receipt.error.detail?.text].filter((part) => part !== undefined).join(" ");
    await options.store.recordAuthFailure(name, (said ?? openError?.message ?? "401/403").slice(0, 300));
  }
}

function usageEntry(name: RoutableProvider, task: Task, context: AttemptContext, opened: boolean, sessionMs: number): UsageEntry | null {
  // A clear refusal (no credential, 401, 429) started nothing: nothing to book.
  if (!opened || sessionMs === 0) return null;
  const estimate = estimateUsage(name, sessionMs);
  if (estimate === null) return null;
  return {
    provider: name,
    operationId: task.operationId,
    attempt: context.attempt,
    sessionMs: estimate.sessionMs,
    unit: estimate.unit,
    amount: estimate.amount,
    usd: estimate.usd ?? null,
    estimate: estimate.estimate,
  };
}

// A fallback reason is wrapped as untrusted where it is made: a failed attempt's reason carries the
// provider's own words from its error.detail (an HTTP error body, which may quote a page), and a
// skip is wrapped too so every reason has one shape.
function skipRecord(skip: Skip): FallbackRecord {
  return { provider: skip.provider, outcome: "skipped", code: skip.code, reason: untrusted(skip.reason) };
}

function errorFields(receipt: Receipt): Pick<FallbackRecord, "code" | "reason"> {
  if (receipt.error === null) return {};
  // The reason keeps the provider's own words (error.detail) after errand's message: inside the wrapper.
  const { message, detail } = receipt.error;
  return { code: receipt.error.code, reason: untrusted(detail === undefined ? message : `${message} ${detail.text}`) };
}

function withFallback(outcome: AttemptOutcome, records: FallbackRecord[]): AttemptOutcome {
  return { ...outcome, receipt: { ...outcome.receipt, fallback: records } };
}

/** The provider a receipt names when none ran: the one the task is pinned to, else "none". */
function unrouted(task: Task): string {
  return task.provider === "auto" ? "none" : task.provider;
}

/** The admission step refused the task: BLOCKED before any provider was considered, so no fallback is listed. */
function refused(task: Task, context: AttemptContext, startedAt: Date, admission: RefusedTask): AttemptOutcome {
  return refusalOutcome({
    task,
    requestDigest: context.requestDigest,
    attempt: context.attempt,
    provider: unrouted(task),
    startedAt,
    refusal: admission.refusal,
    preflight: admission.preflight,
    redactor: admission.redactor,
  });
}

/**
 * No provider could take the admitted task: BLOCKED, nothing ran, with the most telling skip's
 * code and every provider's reason; the admission's preflight evidence stays in the receipt.
 */
function nothingRan(
  task: Task,
  context: AttemptContext,
  admission: AdmittedTask,
  startedAt: Date,
  pinned: boolean,
  skips: Skip[],
  records: FallbackRecord[],
): AttemptOutcome {
  const chosen = blockingSkip(skips);
  const code: ErrorCode = chosen?.code ?? "provider_unconfigured";
  const detail = skips.map((s) => `${s.provider}: ${s.reason}`).join(" ");
  const message = pinned
    ? `This task is pinned to ${task.provider} and never falls back; ${task.provider} could not take it now. ${detail} Nothing was run.`
    : `No provider could take this task, so nothing was run. ${detail}`;
  const outcome = refusalOutcome({
    task,
    requestDigest: context.requestDigest,
    attempt: context.attempt,
    provider: unrouted(task),
    startedAt,
    refusal: { code, message },
    preflight: admission.preflight,
    redactor: admission.redactor,
  });
  return withFallback(outcome, records);
}
