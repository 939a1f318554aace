import { SECOND } from "../config/units.js";

/** The longest errand waits for a session to be released before it gives up and moves on. */
export const CLEANUP_BOUND_MS = 5 * SECOND;

export type BoundedOutcome = { ok: true } | { ok: false; reason: "timed_out" | "failed"; error?: unknown };

/**
 * Runs cleanup work with a hard time bound. The work gets an AbortSignal that fires at the bound
 * so it can cancel its own requests; whatever happens, this resolves (never rejects) by the bound.
 */
export async function withinBound(boundMs: number, work: (signal: AbortSignal) => Promise<void>): Promise<BoundedOutcome> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<BoundedOutcome>((resolve) => {
    timer = setTimeout(
      () => {
        controller.abort();
        resolve({ ok: false, reason: "timed_out" });
      },
      Math.max(0, boundMs),
    );
  });
  const done = work(controller.signal).then(
    (): BoundedOutcome => ({ ok: true }),
    (error: unknown): BoundedOutcome => (controller.signal.aborted ? { ok: false, reason: "timed_out" } : { ok: false, reason: "failed", error }),
  );
  try {
    return await Promise.race([done, expired]);
  } finally {
    clearTimeout(timer);
  }
}
