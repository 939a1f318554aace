/**
 * Lets one log line per kind of failure through per interval: the first of a kind is logged at
 * once; repeats within `intervalMs` of it are only counted, and the first one after the interval
 * is logged with how many were left out. A store outage that fails every poll then costs one line
 * per kind per interval instead of a stack trace per failure.
 */
export class RepeatGate {
  private readonly last = new Map<string, { at: number; suppressed: number }>();

  constructor(
    private readonly intervalMs: number,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Whether a failure of `kind` is logged now, and how many of its kind were left out before it. */
  admit(kind: string): { log: boolean; suppressed: number } {
    const now = this.clock();
    const seen = this.last.get(kind);
    if (seen !== undefined && now - seen.at < this.intervalMs) {
      seen.suppressed += 1;
      return { log: false, suppressed: 0 };
    }
    // Bounded: kinds are (message, error code) pairs from errand's own code, but never let it grow without end.
    if (seen === undefined && this.last.size >= 1000) this.last.clear();
    this.last.set(kind, { at: now, suppressed: 0 });
    return { log: true, suppressed: seen?.suppressed ?? 0 };
  }
}

/** What kind of failure `error` is: its code when it carries one (a store or system error), else its class. */
export function failureKind(error: unknown): string {
  if (typeof error === "object" && error !== null) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string" && code !== "") return code.slice(0, 60);
    if (error instanceof Error) return error.name;
  }
  return typeof error;
}
