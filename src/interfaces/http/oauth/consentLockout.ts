import type { LockoutRecord } from "../../../store/AccessStore.js";
import type { LockoutPolicy } from "../serveSettings.js";

/** Where the consent page stands for a password attempt at `nowMs`. */
export function lockedUntil(record: LockoutRecord, nowMs: number): number | null {
  return record.lockedUntilMs !== null && record.lockedUntilMs > nowMs ? record.lockedUntilMs : null;
}

/**
 * The transition on a wrong password (see LockoutRecord for the states): one more failure, and at
 * the threshold a lock whose length doubles with each lock since the last success.
 */
export function afterFailure(record: LockoutRecord, policy: LockoutPolicy, nowMs: number): { next: LockoutRecord; locked: boolean } {
  const failures = record.failures + 1;
  if (failures < policy.threshold) return { next: { ...record, failures, lastFailureMs: nowMs }, locked: false };
  const lockMs = Math.min(policy.maxLockMs, policy.baseLockMs * 2 ** Math.min(record.lockouts, 20));
  return { next: { ...record, failures: 0, lockouts: record.lockouts + 1, lockedUntilMs: nowMs + lockMs, lastFailureMs: nowMs }, locked: true };
}

/** The transition on the right password: everything forgiven. */
export function afterSuccess(record: LockoutRecord): LockoutRecord {
  return { ...record, failures: 0, lockouts: 0, lockedUntilMs: null };
}

/** How long to hold a wrong answer back: grows with the failures so far. */
export function slowdownMs(failuresSoFar: number, policy: LockoutPolicy): number {
  return Math.min(policy.slowdownMaxMs, policy.slowdownStepMs * Math.max(1, failuresSoFar));
}
