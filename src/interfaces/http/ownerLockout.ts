import type { LockoutRecord, LockoutTransition } from "../../store/AccessStore.js";
import type { LockoutPolicy } from "./serveSettings.js";

/**
 * Transitions of the per-address owner-password lockout (states in AccessStore.LockoutRecord).
 * The store applies each inside one write transaction, so concurrent attempts are counted one
 * after another. An attempt is counted before its password is checked: N concurrent guesses can
 * have at most the remaining allowance evaluated, and the right password only forgives afterwards.
 */

export type Reservation = { kind: "reserved"; failuresSoFar: number } | { kind: "locked"; untilMs: number } | { kind: "busy" };

/** Forgets a history whose last failure is older than the policy's memory and which is not locked now. */
function current(record: LockoutRecord, policy: LockoutPolicy, nowMs: number): LockoutRecord {
  const locked = record.lockedUntilMs !== null && record.lockedUntilMs > nowMs;
  if (!locked && record.lastFailureMs !== null && nowMs - record.lastFailureMs >= policy.forgetMs)
    return { failures: 0, lockouts: 0, lockedUntilMs: null, lastFailureMs: null };
  return record;
}

/** Until when the address is locked, or null. */
export function lockedUntil(record: LockoutRecord, nowMs: number): number | null {
  return record.lockedUntilMs !== null && record.lockedUntilMs > nowMs ? record.lockedUntilMs : null;
}

/** The length of the lock that starts after `lockouts` earlier locks: base · 2^lockouts, capped. */
export function lockLengthMs(lockouts: number, policy: LockoutPolicy): number {
  return Math.min(policy.maxLockMs, policy.baseLockMs * 2 ** Math.min(lockouts, 30));
}

/**
 * Before a password is checked: refused while locked, refused ("busy") when the attempts already
 * counted (finished or still being checked) fill the allowance; otherwise counted as a failure now.
 */
export function reserveAttempt(policy: LockoutPolicy): (record: LockoutRecord, nowMs: number) => LockoutTransition<Reservation> {
  return (stored, nowMs) => {
    const record = current(stored, policy, nowMs);
    const until = lockedUntil(record, nowMs);
    if (until !== null) return { next: record, result: { kind: "locked", untilMs: until } };
    if (record.failures >= policy.threshold) return { next: record, result: { kind: "busy" } };
    const failures = record.failures + 1;
    return { next: { ...record, lockedUntilMs: null, failures, lastFailureMs: nowMs }, result: { kind: "reserved", failuresSoFar: failures } };
  };
}

/** What a wrong answer left: the lock it started (or null), else how many more wrong answers start one, and how long that lock would last. */
export interface WrongPasswordOutcome {
  lockedUntilMs: number | null;
  attemptsLeft: number;
  nextLockMs: number;
}

/** After a wrong password (already counted): at the threshold, lock for the next length of the schedule. */
export function afterWrongPassword(policy: LockoutPolicy): (record: LockoutRecord, nowMs: number) => LockoutTransition<WrongPasswordOutcome> {
  return (record, nowMs) => {
    const until = lockedUntil(record, nowMs);
    const nextLockMs = lockLengthMs(record.lockouts, policy);
    if (until !== null) return { next: record, result: { lockedUntilMs: until, attemptsLeft: 0, nextLockMs } };
    if (record.failures < policy.threshold) {
      return {
        next: record,
        result: { lockedUntilMs: null, attemptsLeft: policy.threshold - record.failures, nextLockMs },
        change: { change: "owner_password_failed", failures: record.failures },
      };
    }
    const lockedUntilMs = nowMs + lockLengthMs(record.lockouts, policy);
    return {
      next: { ...record, failures: 0, lockouts: record.lockouts + 1, lockedUntilMs },
      result: { lockedUntilMs, attemptsLeft: 0, nextLockMs },
      change: { change: "owner_locked", lockedUntilMs, lockouts: record.lockouts + 1 },
    };
  };
}

/** After the right password: forgiven, unless a lock began meanwhile (then nothing may be issued). */
export function afterRightPassword(): (record: LockoutRecord, nowMs: number) => LockoutTransition<boolean> {
  return (record, nowMs) => (lockedUntil(record, nowMs) !== null ? { next: record, result: false } : { next: null, result: true });
}

/** How long to hold a wrong answer back: grows with the attempts counted so far. */
export function slowdownMs(failuresSoFar: number, policy: LockoutPolicy): number {
  return Math.min(policy.slowdownMaxMs, policy.slowdownStepMs * Math.max(1, failuresSoFar));
}
