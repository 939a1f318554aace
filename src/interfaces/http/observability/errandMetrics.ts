import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { Receipt } from "../../../receipt/receiptTypes.js";
import type { StatusReport } from "../../../operations/serviceTypes.js";

/** One cloud provider's usage against its budget, as /metrics reports it. */
export interface UsageSample {
  provider: string;
  unit: string;
  used: number;
  limit: number;
}

/** Where the gauges read their values at scrape time (the store is the truth, not this process). */
export interface MetricsSources {
  status(): Promise<StatusReport>;
  usage(): Promise<UsageSample[]>;
}

/** Which errand is serving: errand_build_info's labels. */
export interface BuildInfo {
  version: string;
  commit: string;
}

/** What the serving process reports as it works; the rest is read at scrape time. */
export interface ErrandMetrics {
  /** An attempt ended with this receipt after `durationMs` on the wall clock (finished or retried). */
  recordAttempt(receipt: Receipt, durationMs: number): void;
  /** An operation reached its end with a receipt of this status from this provider (a retried attempt does not). */
  recordFinished(status: string, provider: string): void;
  /** An HTTP request was answered: its method, the route pattern it matched (never the raw path), status and duration. */
  recordRequest(request: { method: string; route: string; status: number; seconds: number }): void;
  /** A runner gave an expired lease back to the queue or ended it. */
  recordLeaseRecovery(resolution: string): void;
  /** A bearer token or client credential was refused. */
  recordAuthFailure(endpoint: string): void;
  /** A scheduled journal compaction ended (compacted, refused or failed), having compacted `operations`. */
  recordCompaction(outcome: "compacted" | "refused" | "failed", operations: number): void;
  /** The Prometheus text exposition of every errand_ metric. */
  render(): Promise<{ contentType: string; body: string }>;
}

const BREAKER_VALUE: Record<string, number> = { CLOSED: 0, HALF_OPEN: 1, OPEN: 2 };

/** Network guard counters of a receipt that count as egress refusals, by the label they get. */
const REFUSALS: readonly [keyof Receipt["network"], string][] = [
  ["blockedRequests", "request"],
  ["navigationsBlocked", "navigation"],
  ["nonGetAborted", "method"],
  ["egressBlocked", "proxy"],
];

/**
 * errand's Prometheus metrics on a private registry (so two apps in one test process never share
 * counters). Counters and the histogram count what this process did since it started; gauges
 * (operations per phase, queue depth, breaker states, usage and budgets) are read from the store
 * at each scrape, so they are true across every runner sharing the database. No label ever holds
 * a task's content, a URL or a secret: only statuses, provider names, phases, units and route
 * patterns. Node's process metrics (prom-client's defaults: CPU, memory, event loop lag, handles,
 * GC) are on the same registry, and errand_build_info names the version and commit serving.
 */
export function createErrandMetrics(sources: MetricsSources, build: BuildInfo = { version: "unknown", commit: "unknown" }): ErrandMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  new Gauge({
    name: "errand_build_info",
    help: "Always 1; its labels name the errand version and the commit it was built from.",
    labelNames: ["version", "commit"] as const,
    registers: [registry],
  }).set({ version: build.version, commit: build.commit }, 1);
  const finished = new Counter({
    name: "errand_operations_finished_total",
    help: "Operations this process ended with a receipt, by status and provider (an attempt that is retried does not count).",
    labelNames: ["status", "provider"] as const,
    registers: [registry],
  });
  const requests = new Histogram({
    name: "errand_http_request_duration_seconds",
    help: "HTTP requests answered, by method, route pattern and status code, with their duration.",
    labelNames: ["method", "route", "status"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  const duration = new Histogram({
    name: "errand_attempt_duration_seconds",
    help: "Wall-clock duration of an attempt, from the executor's start to its receipt.",
    labelNames: ["provider", "status"] as const,
    buckets: [0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300],
    registers: [registry],
  });
  const recoveries = new Counter({
    name: "errand_lease_recoveries_total",
    help: "Expired leases recovered by this process, by resolution (requeue, blocked, uncertain).",
    labelNames: ["resolution"] as const,
    registers: [registry],
  });
  const authFailures = new Counter({
    name: "errand_auth_failures_total",
    help: "Refused bearer tokens and client credentials, by endpoint family (mcp, v1, metrics, token).",
    labelNames: ["endpoint"] as const,
    registers: [registry],
  });
  const compactions = new Counter({
    name: "errand_journal_compactions_total",
    help: "Scheduled journal compactions this process ran (ERRAND_COMPACT_AFTER), by outcome (compacted, refused: the journal did not verify, failed: the store failed).",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  const compactedOperations = new Counter({
    name: "errand_journal_compacted_operations_total",
    help: "Finished operations this process's scheduled compactions turned into tombstones.",
    registers: [registry],
  });
  const refusals = new Counter({
    name: "errand_egress_refusals_total",
    help: "Browser traffic the network guards refused, by kind (request, navigation, method, proxy).",
    labelNames: ["kind"] as const,
    registers: [registry],
  });

  // Read once per scrape and shared by the gauges below.
  let snapshot: Promise<{ status: StatusReport; usage: UsageSample[] }> | undefined;
  const read = () => (snapshot ??= Promise.all([sources.status(), sources.usage()]).then(([status, usage]) => ({ status, usage })));

  new Gauge({
    name: "errand_operations",
    help: "Operations in the store, by phase (queued, running, completed, blocked, uncertain, cancelled).",
    labelNames: ["phase"] as const,
    registers: [registry],
    async collect() {
      const { status } = await read();
      this.reset();
      for (const [phase, count] of Object.entries(status.store.phases)) this.set({ phase }, count);
    },
  });
  new Gauge({
    name: "errand_queue_depth",
    help: "Operations waiting to run (queued, eligible now or after a retry delay).",
    registers: [registry],
    async collect() {
      const { status } = await read();
      this.set(status.store.phases["queued"] ?? 0);
    },
  });
  new Gauge({
    name: "errand_expired_leases",
    help: "Running operations whose lease expired and that wait for recovery.",
    registers: [registry],
    async collect() {
      const { status } = await read();
      this.set(status.store.expiredLeases);
    },
  });
  new Gauge({
    name: "errand_breaker_state",
    help: "Each provider's circuit breaker: 0 closed, 1 half-open, 2 open.",
    labelNames: ["provider"] as const,
    registers: [registry],
    async collect() {
      const { status } = await read();
      this.reset();
      for (const breaker of status.breakers) this.set({ provider: breaker.provider }, BREAKER_VALUE[breaker.state] ?? 0);
    },
  });
  new Gauge({
    name: "errand_provider_usage",
    help: "Each cloud provider's booked usage in its budget period, in the budget's unit.",
    labelNames: ["provider", "unit"] as const,
    registers: [registry],
    async collect() {
      const { usage } = await read();
      this.reset();
      for (const u of usage) this.set({ provider: u.provider, unit: u.unit }, u.used);
    },
  });
  new Gauge({
    name: "errand_provider_budget",
    help: "Each cloud provider's budget cap for its period, in the same unit as errand_provider_usage.",
    labelNames: ["provider", "unit"] as const,
    registers: [registry],
    async collect() {
      const { usage } = await read();
      this.reset();
      for (const u of usage) this.set({ provider: u.provider, unit: u.unit }, u.limit);
    },
  });
  new Gauge({
    name: "errand_journal_bytes",
    help: "Bytes the journal stores against its quota (errand_journal_quota_bytes).",
    registers: [registry],
    async collect() {
      const { status } = await read();
      this.set(status.journal.storedBytes);
    },
  });
  new Gauge({
    name: "errand_journal_quota_bytes",
    help: "The journal's quota (ERRAND_JOURNAL_QUOTA_BYTES).",
    registers: [registry],
    async collect() {
      const { status } = await read();
      this.set(status.journal.quotaBytes);
    },
  });

  return {
    recordAttempt(receipt, durationMs) {
      duration.observe({ provider: receipt.provider, status: receipt.status }, durationMs / 1000);
      for (const [field, kind] of REFUSALS) {
        const count = receipt.network[field];
        if (typeof count === "number" && count > 0) refusals.inc({ kind }, count);
      }
    },
    recordFinished(status, provider) {
      finished.inc({ status, provider });
    },
    recordRequest(request) {
      requests.observe({ method: request.method, route: request.route, status: String(request.status) }, request.seconds);
    },
    recordLeaseRecovery(resolution) {
      recoveries.inc({ resolution });
    },
    recordAuthFailure(endpoint) {
      authFailures.inc({ endpoint });
    },
    recordCompaction(outcome, operations) {
      compactions.inc({ outcome });
      if (operations > 0) compactedOperations.inc(operations);
    },
    async render() {
      snapshot = undefined;
      try {
        // prom-client writes a NaN sample (an event-loop mean before any sample) as "Nan"; the format spells it NaN.
        return { contentType: registry.contentType, body: (await registry.metrics()).replace(/ Nan$/gm, " NaN") };
      } finally {
        snapshot = undefined;
      }
    },
  };
}
