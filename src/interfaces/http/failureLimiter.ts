/**
 * Counts events (authentication failures, registrations) per key (a client address) in fixed
 * windows and says when a key is over its allowance. In memory: a restart forgets, which only ever
 * lets a caller try again sooner; the owner-password lockout that matters is persisted separately.
 */
export interface FailureLimiter {
  /** Seconds until the key may try again, or 0 when it is within its allowance. */
  retryAfterSeconds(key: string): number;
  record(key: string): void;
  reset(key: string): void;
}

const MAX_KEYS = 10_000;

export function createFailureLimiter(options: { max: number; windowMs: number; clock?: () => number }): FailureLimiter {
  const clock = options.clock ?? Date.now;
  const windows = new Map<string, { startMs: number; count: number }>();
  const current = (key: string) => {
    const entry = windows.get(key);
    if (entry === undefined || clock() - entry.startMs >= options.windowMs) return undefined;
    return entry;
  };
  return {
    retryAfterSeconds(key) {
      const entry = current(key);
      if (entry === undefined || entry.count < options.max) return 0;
      return Math.max(1, Math.ceil((entry.startMs + options.windowMs - clock()) / 1000));
    },
    record(key) {
      const entry = current(key);
      if (entry !== undefined) {
        entry.count += 1;
        return;
      }
      if (windows.size >= MAX_KEYS) {
        const now = clock();
        for (const [k, e] of windows) if (now - e.startMs >= options.windowMs) windows.delete(k);
        if (windows.size >= MAX_KEYS) windows.delete(windows.keys().next().value as string);
      }
      windows.set(key, { startMs: clock(), count: 1 });
    },
    reset(key) {
      windows.delete(key);
    },
  };
}
