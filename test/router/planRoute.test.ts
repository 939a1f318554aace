// The router's decisions as pure functions: which providers a task may use, in which order, which
// are passed over and why, when a failure may move to the next provider, and each provider's state.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";
import { ConfigError } from "../../src/config/runtimeConfig.js";
import { MINUTE, SECOND } from "../../src/config/units.js";
import type { Receipt } from "../../src/receipt/receiptTypes.js";
import { describeProvider } from "../../src/router/describeProvider.js";
import type { ProviderFacts } from "../../src/router/describeProvider.js";
import { blockingSkip, mayFallBack, planRoute } from "../../src/router/planRoute.js";
import type { RouteStep } from "../../src/router/planRoute.js";
import { DEFAULT_CONCURRENCY, defaultBudgets, resolveRoutingConfig, STEEL_CREDIT_MINUTES } from "../../src/router/routingConfig.js";
import type { RoutableProvider } from "../../src/router/routingConfig.js";
import { synthesizeReceipt } from "../../src/runner/synthesizeReceipt.js";
import type { ProviderStateRecord } from "../../src/store/ProviderStore.js";
import type { BreakerRecord } from "../../src/store/Store.js";
import { validateTask } from "../../src/task/validateTask.js";
import type { Task } from "../../src/task/taskTypes.js";
import { outsideWrapper, PLANTED, plantedIn } from "../support/plantedSentence.js";

const NOW = Date.UTC(2026, 11, 15, 12, 0, 0);
const BUDGET_MS = 25 * SECOND;
const config = resolveRoutingConfig({});

function task(partial: Record<string, unknown> = {}): Task {
  const result = validateTask({
    schemaVersion: "errand.task.v1",
    operationId: randomUUID(),
    target: { url: "https://example.com/" },
    risk: "read_only",
    steps: [{ action: "expect_text", text: "x" }],
    ...partial,
  });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.value;
}

function record(provider: string, overrides: Partial<ProviderStateRecord> = {}): ProviderStateRecord {
  return {
    provider,
    smokeStatus: null,
    smokeOperationId: null,
    smokeErrorCode: null,
    smokeMs: null,
    verifiedMs: null,
    authFailedMs: null,
    authReason: null,
    backoffUntilMs: null,
    backoffReason: null,
    updatedMs: null,
    ...overrides,
  };
}

function closed(provider: string): BreakerRecord {
  return { provider, state: "CLOSED", failures: 0, openUntilMs: null, probeToken: null, probeExpiresMs: null, revision: 0, updatedMs: 0 };
}

type Setup = Partial<{
  configured: boolean;
  verified: boolean;
  breaker: Partial<BreakerRecord>;
  used: number;
  liveSlots: number;
  backoffUntilMs: number;
  record: Partial<ProviderStateRecord>;
}>;

/** Facts for every provider: cloud ones unconfigured unless set up, local with Chromium. */
function facts(setup: Partial<Record<RoutableProvider, Setup>> = {}): Map<RoutableProvider, ProviderFacts> {
  const map = new Map<RoutableProvider, ProviderFacts>();
  for (const name of ["kernel", "browserless", "browserbase", "steel", "local"] as const) {
    const s = setup[name] ?? {};
    const cloud = name !== "local";
    map.set(name, {
      name,
      kind: cloud ? "cloud" : "local",
      missing: cloud ? (s.configured !== true ? `${name} needs a credential` : null) : s.configured === false ? "No Chromium found" : null,
      record: record(name, {
        ...(s.verified === true ? { verifiedMs: NOW - MINUTE, smokeStatus: "PASS", smokeMs: NOW - MINUTE } : {}),
        ...(s.backoffUntilMs === undefined ? {} : { backoffUntilMs: s.backoffUntilMs, backoffReason: "Retry-After 30 s" }),
        ...s.record,
      }),
      breaker: { ...closed(name), ...s.breaker },
      usage: cloud
        ? { provider: name, sessions: 0, sessionMs: 0, amount: s.used ?? 0, usd: null, liveSlots: s.liveSlots ?? 0, reserved: 0, nextSlotExpiryMs: null }
        : null,
      cap: cloud ? defaultBudgets()[name] : null,
      concurrency: cloud ? DEFAULT_CONCURRENCY[name] : null,
    });
  }
  return map;
}

const ready: Setup = { configured: true, verified: true };
const names = (steps: RouteStep[]) => steps.map((s) => (s.kind === "try" ? `try:${s.provider}` : `skip:${s.skip.provider}:${s.skip.code}`));

function receiptWith(t: Task, code: string | null, status: Receipt["status"] = "FAIL"): Receipt {
  const receipt = synthesizeReceipt({
    operationId: t.operationId,
    requestDigest: "d",
    task: t,
    risk: t.risk,
    end: { kind: "untouched" },
    error: code === null ? null : { code: code as "provider_unavailable", message: "m" },
    attempts: 1,
    mutationBoundary: "not_crossed",
    provider: "kernel",
    steps: "skipped",
    startedAt: new Date(NOW),
  });
  return { ...receipt, status };
}

describe("planRoute", () => {
  test("with no cloud provider configured, auto runs on local alone and names nothing else", () => {
    const plan = planRoute(task(), config, facts(), NOW, BUDGET_MS);
    assert.deepEqual(names(plan.steps), ["try:local"]);
    assert.equal(plan.pinned, false);
  });

  test("auto follows the configured order and passes over unconfigured, unverified, circuit-open, over-budget, full and backing-off providers, each with its reason", () => {
    const order = resolveRoutingConfig({ ERRAND_PROVIDER_ORDER: "kernel,browserless,browserbase,steel,local" });
    const plan = planRoute(
      task(),
      order,
      facts({
        kernel: { configured: false },
        browserless: { ...ready, breaker: { state: "OPEN", failures: 3, openUntilMs: NOW + 10 * MINUTE } },
        browserbase: { ...ready, used: 60 },
        steel: { ...ready, liveSlots: DEFAULT_CONCURRENCY.steel },
      }),
      NOW,
      BUDGET_MS,
    );
    assert.deepEqual(names(plan.steps), [
      "skip:kernel:provider_unconfigured",
      "skip:browserless:circuit_open",
      "skip:browserbase:budget_exhausted",
      "skip:steel:provider_capacity",
      "try:local",
    ]);
    const reasons = plan.steps.flatMap((s) => (s.kind === "skip" ? [s.skip.reason] : []));
    assert.match(reasons[1] ?? "", /3 consecutive provider failures .* probe through at 2026-12-15T12:10:00.000Z/);
    assert.match(reasons[2] ?? "", /used 60 of 60 browser_minute this month.*resets at 2027-01-01/);
    assert.match(reasons[3] ?? "", /all 10 of steel's concurrency slots are held/);

    const verifiedOnlyLater = planRoute(task(), config, facts({ kernel: { configured: true }, browserless: ready }), NOW, BUDGET_MS);
    assert.deepEqual(names(verifiedOnlyLater.steps), [
      "skip:kernel:provider_unverified",
      "try:browserless",
      "skip:browserbase:provider_unconfigured",
      "skip:steel:provider_unconfigured",
      "try:local",
    ]);
    const backingOff = planRoute(task(), config, facts({ kernel: { ...ready, backoffUntilMs: NOW + 30 * SECOND }, browserless: ready }), NOW, BUDGET_MS);
    assert.deepEqual(names(backingOff.steps).slice(0, 2), ["skip:kernel:provider_capacity", "try:browserless"]);
    assert.equal(backingOff.steps[0]?.kind === "skip" && backingOff.steps[0].skip.transient, true, "a back-off may clear while the task waits");
    const backoffOver = planRoute(task(), config, facts({ kernel: { ...ready, backoffUntilMs: NOW - 1 } }), NOW, BUDGET_MS);
    assert.deepEqual(names(backoffOver.steps).slice(0, 1), ["try:kernel"]);
  });

  test("auto routing ends with local where it is available, even when a cloud credential is set but unverified; an order naming local puts it there", () => {
    const kernelOnly = planRoute(task(), config, facts({ kernel: { configured: true } }), NOW, BUDGET_MS);
    assert.deepEqual(
      names(kernelOnly.steps),
      [
        "skip:kernel:provider_unverified",
        "skip:browserless:provider_unconfigured",
        "skip:browserbase:provider_unconfigured",
        "skip:steel:provider_unconfigured",
        "try:local",
      ],
      "a credential is not a verdict",
    );
    const write = planRoute(task({ risk: "reversible_write", approved: true }), config, facts({ kernel: { configured: true } }), NOW, BUDGET_MS);
    assert.deepEqual(names(write.steps).at(-1), "try:local");
    const noChromium = planRoute(task(), config, facts({ kernel: { configured: true }, local: { configured: false } }), NOW, BUDGET_MS);
    assert.deepEqual(names(noChromium.steps).at(-1), "skip:local:provider_unconfigured");
    assert.equal(
      blockingSkip(noChromium.steps.flatMap((s) => (s.kind === "skip" ? [s.skip] : [])))?.code,
      "provider_unverified",
      "the refusal names what the owner can fix first",
    );
    const listed = planRoute(task(), resolveRoutingConfig({ ERRAND_PROVIDER_ORDER: "local,kernel" }), facts({ kernel: ready }), NOW, BUDGET_MS);
    assert.deepEqual(names(listed.steps), ["try:local", "try:kernel"]);
  });

  test("a pinned task considers its provider alone, verified or not, and is still refused by its circuit, budget and slots", () => {
    const pinned = planRoute(task({ provider: "kernel" }), config, facts({ kernel: { configured: true }, browserless: ready }), NOW, BUDGET_MS);
    assert.equal(pinned.pinned, true);
    assert.deepEqual(names(pinned.steps), ["try:kernel"]);
    const unconfigured = planRoute(task({ provider: "steel" }), config, facts({ browserless: ready }), NOW, BUDGET_MS);
    assert.deepEqual(names(unconfigured.steps), ["try:steel"], "the executor refuses a missing credential in its own words");
    const open = planRoute(
      task({ provider: "kernel" }),
      config,
      facts({ kernel: { ...ready, breaker: { state: "OPEN", failures: 3, openUntilMs: NOW + MINUTE } }, browserless: ready }),
      NOW,
      BUDGET_MS,
    );
    assert.deepEqual(names(open.steps), ["skip:kernel:circuit_open"]);
    const poor = planRoute(task({ provider: "browserless" }), config, facts({ browserless: { ...ready, used: 999 } }), NOW, BUDGET_MS);
    assert.deepEqual(names(poor.steps), ["skip:browserless:budget_exhausted"], "25 s + 15 s grace is 2 units; 999 + 2 > 1000");
  });

  test("pinned tasks never fall back, whatever the failure", () => {
    for (const code of ["provider_unavailable", "provider_capacity", "provider_auth_failed", "timeout"]) {
      assert.equal(mayFallBack(task({ provider: "kernel" }), true, receiptWith(task(), code)), false, code);
    }
  });

  test("read_only falls back only after provider_unavailable or a 429; writes never fall back", () => {
    const read = task();
    assert.equal(mayFallBack(read, false, receiptWith(read, "provider_unavailable")), true);
    assert.equal(mayFallBack(read, false, receiptWith(read, "provider_capacity", "BLOCKED")), true);
    for (const code of ["expectation_failed", "step_failed", "timeout", "provider_auth_failed", "network_blocked", "cancelled", null]) {
      assert.equal(mayFallBack(read, false, receiptWith(read, code)), false, String(code));
    }
    for (const risk of ["reversible_write", "consequential"]) {
      const write = task({
        risk,
        approved: true,
        steps: [
          { action: "click", selector: "#go" },
          { action: "expect_text", text: "x" },
        ],
      });
      assert.equal(mayFallBack(write, false, receiptWith(write, "provider_unavailable", "BLOCKED")), false, `${risk} before its boundary`);
      assert.equal(mayFallBack(write, false, receiptWith(write, "provider_unavailable", "UNCERTAIN")), false, `${risk} after its boundary`);
      assert.equal(mayFallBack(write, false, receiptWith(write, "provider_capacity", "BLOCKED")), false, `${risk} refused with 429`);
    }
  });

  test("when nothing can run, the receipt's code is the first skip that says more than 'not configured'", () => {
    const skips = [
      { provider: "kernel" as const, code: "provider_unconfigured" as const, reason: "", transient: false },
      { provider: "browserless" as const, code: "budget_exhausted" as const, reason: "", transient: false },
      { provider: "steel" as const, code: "circuit_open" as const, reason: "", transient: false },
    ];
    assert.equal(blockingSkip(skips)?.code, "budget_exhausted");
    assert.equal(blockingSkip(skips.slice(0, 1))?.code, "provider_unconfigured");
  });
});

describe("routing configuration", () => {
  test("defaults come from the free tiers; ERRAND_* variables override them; bad values name the variable", () => {
    assert.deepEqual(config.order, ["kernel", "browserless", "browserbase", "steel"]);
    assert.deepEqual({ ...config.concurrency }, { kernel: 5, browserless: 2, browserbase: 1, steel: 10 });
    assert.equal(config.budgets.browserless.limit, 1000);
    assert.equal(config.budgets.kernel.unit, "gb_second");
    assert.equal(config.budgets.kernel.usdLimit, 5);
    assert.equal(config.budgets.kernel.limit, 299_999, "$5 at $0.0000166667 per GB-second");
    assert.equal(config.budgets.browserbase.limit, 60);
    assert.equal(config.budgets.steel.limit, STEEL_CREDIT_MINUTES);
    assert.equal(config.budgets.steel.period, "total");

    const custom = resolveRoutingConfig({
      ERRAND_PROVIDER_ORDER: " Steel , local ",
      ERRAND_CONCURRENCY_KERNEL: "1",
      ERRAND_BUDGET_KERNEL_USD: "0.5",
      ERRAND_BUDGET_BROWSERLESS_UNITS: "0",
      ERRAND_BACKOFF_MS: "1000",
    });
    assert.deepEqual(custom.order, ["steel", "local"]);
    assert.equal(custom.concurrency.kernel, 1);
    assert.equal(custom.budgets.kernel.limit, 29_999);
    assert.equal(custom.budgets.browserless.limit, 0);
    assert.equal(custom.backoffDefaultMs, 1000);

    for (const env of [
      { ERRAND_PROVIDER_ORDER: "kernel,chrome" },
      { ERRAND_PROVIDER_ORDER: "kernel,kernel" },
      { ERRAND_PROVIDER_ORDER: " , " },
      { ERRAND_CONCURRENCY_STEEL: "-1" },
      { ERRAND_BUDGET_BROWSERLESS_UNITS: "1.5" },
      { ERRAND_BUDGET_KERNEL_USD: "five" },
    ]) {
      assert.throws(
        () => resolveRoutingConfig(env),
        (e: unknown) => e instanceof ConfigError && e.message.includes(Object.keys(env)[0] ?? ""),
        JSON.stringify(env),
      );
    }
  });
});

describe("provider states", () => {
  const describe1 = (name: RoutableProvider, setup: Setup) => {
    const found = facts({ [name]: setup }).get(name);
    assert.ok(found);
    return describeProvider(found, NOW, BUDGET_MS);
  };

  test("UNCONFIGURED, UNVERIFIED, OPERATIONAL, CIRCUIT_OPEN and BUDGET_EXHAUSTED, each with its reason and end time", () => {
    assert.equal(describe1("kernel", {}).state, "UNCONFIGURED");
    const never = describe1("kernel", { configured: true });
    assert.equal(never.state, "UNVERIFIED");
    assert.match(never.reason, /never passed a smoke; run "errand provider smoke kernel"/);
    const failedSmoke = describe1("kernel", { configured: true, record: { smokeStatus: "FAIL", smokeErrorCode: "expectation_failed", smokeMs: NOW - MINUTE } });
    assert.match(failedSmoke.reason, /ended FAIL \(expectation_failed\), not PASS/);
    const refused = describe1("kernel", { ...ready, record: { verifiedMs: null, authFailedMs: NOW, authReason: "Kernel refused the credential (401)" } });
    assert.equal(refused.state, "UNVERIFIED");
    assert.match(refused.reason, /refused errand's credential .*401/);
    const operational = describe1("kernel", ready);
    assert.equal(operational.state, "OPERATIONAL");
    assert.equal(operational.until, null);
    const open = describe1("kernel", { ...ready, breaker: { state: "OPEN", failures: 3, openUntilMs: NOW + 15 * MINUTE } });
    assert.equal(open.state, "CIRCUIT_OPEN");
    assert.equal(open.until, new Date(NOW + 15 * MINUTE).toISOString());
    assert.equal(open.verified, true, "it is OPERATIONAL again once the circuit closes");
    const poor = describe1("browserless", { ...ready, used: 1000 });
    assert.equal(poor.state, "BUDGET_EXHAUSTED");
    assert.equal(poor.until, "2027-01-01T00:00:00.000Z", "a monthly cap ends with the month (UTC)");
    const spent = describe1("steel", { ...ready, used: STEEL_CREDIT_MINUTES });
    assert.equal(spent.state, "BUDGET_EXHAUSTED");
    assert.equal(spent.until, null, "a one-time credit does not come back by itself");
    assert.equal(describe1("local", {}).state, "OPERATIONAL");
  });

  test("a refusal's recorded words (which may quote a page) are shown only in the untrusted wrapper: authFailure.reason; the state's reason and the router's skip are errand's words", () => {
    const said = `Kernel refused errand's credential (HTTP 401) while creating a browser; check KERNEL_API_KEY. the page answered: ${PLANTED}`;
    const refused = describe1("kernel", { ...ready, record: { verifiedMs: null, authFailedMs: NOW, authReason: said } });
    assert.deepEqual(refused.authFailure, { at: new Date(NOW).toISOString(), reason: { untrusted: true, text: said } });
    assert.equal(plantedIn(outsideWrapper(refused)), false, outsideWrapper(refused));
    const found = facts({ kernel: { ...ready, record: { verifiedMs: null, authFailedMs: NOW, authReason: said } } });
    const skipped = planRoute(task(), config, found, NOW, BUDGET_MS).steps.find((s) => s.kind === "skip" && s.skip.provider === "kernel");
    assert.ok(skipped?.kind === "skip" && skipped.skip.code === "provider_unverified", JSON.stringify(skipped));
    assert.equal(plantedIn(skipped.skip.reason), false, skipped.skip.reason);
  });
});
