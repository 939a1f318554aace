import type { RuntimeConfig } from "../config/runtimeConfig.js";
import type { BreakerRecord } from "../store/Store.js";

/**
 * Per-provider circuit breaker, an explicit state machine persisted in the store (so every runner
 * process on every machine sees the same state) and moved only by compare-and-set on its revision.
 *
 *   CLOSED    --provider failure, failures+1 <  threshold-->  CLOSED (failures+1)
 *   CLOSED    --provider failure, failures+1 >= threshold-->  OPEN (until now+cooldown)
 *   CLOSED    --success-->                                    CLOSED (failures 0)
 *   OPEN      --admit before `until`-->                       refused
 *   OPEN      --admit at/after `until`-->                     HALF_OPEN (one probe, with a token)
 *   HALF_OPEN --admit while the probe is live-->              refused
 *   HALF_OPEN --admit after the probe was abandoned-->        HALF_OPEN (a new probe replaces it)
 *   HALF_OPEN --probe succeeds-->                             CLOSED (failures 0)
 *   HALF_OPEN --probe fails (provider class)-->               OPEN (until now+cooldown)
 *   HALF_OPEN --probe neither (configuration, cancel)-->      OPEN (until now: the next admit probes again)
 *
 * Outcomes of attempts that were admitted while CLOSED but finish after the circuit opened do not
 * move it. Configuration errors (BLOCKED, missing credentials) never count as provider failures.
 */
export interface BreakerPolicy {
  /** Consecutive provider-class failures that open the circuit. */
  threshold: number;
  /** How long an open circuit refuses work (ms). */
  cooldownMs: number;
  /** After this long without an outcome, a probe is considered abandoned (ms). */
  probeTimeoutMs: number;
}

export type BreakerOutcome = "success" | "provider_failure" | "neutral";

export type Admission = { kind: "admit" } | { kind: "probe"; next: BreakerRecord } | { kind: "refuse"; retryAtMs: number | null };

/** Decides whether an attempt may use the provider now; a probe must be claimed with writeBreaker. */
export function admit(record: BreakerRecord, now: number, policy: BreakerPolicy, probeToken: string): Admission {
  switch (record.state) {
    case "CLOSED":
      return { kind: "admit" };
    case "OPEN": {
      const until = record.openUntilMs ?? 0;
      if (now < until) return { kind: "refuse", retryAtMs: until };
      return { kind: "probe", next: { ...record, state: "HALF_OPEN", probeToken, probeExpiresMs: now + policy.probeTimeoutMs } };
    }
    case "HALF_OPEN": {
      const expires = record.probeExpiresMs ?? 0;
      if (now < expires) return { kind: "refuse", retryAtMs: null };
      return { kind: "probe", next: { ...record, state: "HALF_OPEN", probeToken, probeExpiresMs: now + policy.probeTimeoutMs } };
    }
  }
}

/**
 * The breaker after an attempt's outcome, or null when the outcome does not move it. `probeToken`
 * is the token of the probe this attempt holds (null for an ordinary admitted attempt).
 */
export function recordOutcome(
  record: BreakerRecord,
  outcome: BreakerOutcome,
  now: number,
  policy: BreakerPolicy,
  probeToken: string | null,
): BreakerRecord | null {
  const closed = (): BreakerRecord => ({ ...record, state: "CLOSED", failures: 0, openUntilMs: null, probeToken: null, probeExpiresMs: null });
  const open = (until: number): BreakerRecord => ({
    ...record,
    state: "OPEN",
    failures: Math.max(record.failures, policy.threshold),
    openUntilMs: until,
    probeToken: null,
    probeExpiresMs: null,
  });

  switch (record.state) {
    case "CLOSED":
      if (outcome === "success") return record.failures === 0 ? null : closed();
      if (outcome === "neutral") return null;
      return record.failures + 1 >= policy.threshold ? open(now + policy.cooldownMs) : { ...record, failures: record.failures + 1 };
    case "OPEN":
      return null;
    case "HALF_OPEN":
      if (probeToken === null || record.probeToken !== probeToken) return null;
      if (outcome === "success") return closed();
      if (outcome === "provider_failure") return open(now + policy.cooldownMs);
      return open(now);
  }
}

/** The breaker thresholds from errand's configuration; a half-open probe may take a whole attempt (lease + browser budget). */
export function breakerPolicy(config: RuntimeConfig): BreakerPolicy {
  return { threshold: config.breakerThreshold, cooldownMs: config.breakerCooldownMs, probeTimeoutMs: config.leaseMs + config.browserTimeoutMs };
}
