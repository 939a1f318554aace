import type { FailureLimiter } from "./failureLimiter.js";

/** The same limiter, also reporting each recorded failure (for errand_auth_failures_total). */
export function countingFailures(limiter: FailureLimiter, onFailure: (() => void) | undefined): FailureLimiter {
  if (onFailure === undefined) return limiter;
  return {
    retryAfterSeconds: (key) => limiter.retryAfterSeconds(key),
    record(key) {
      onFailure();
      limiter.record(key);
    },
    reset: (key) => limiter.reset(key),
  };
}
