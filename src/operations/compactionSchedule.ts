import { HOUR } from "../config/units.js";
import type { ErrorCode } from "../errors/errorCodes.js";
import type { CompactResult } from "./serviceTypes.js";

/** How often a long-running server compacts the journal (when ERRAND_COMPACT_AFTER is not "off"). */
export const JOURNAL_COMPACTION_INTERVAL_MS = 1 * HOUR;

/** What one scheduled compaction came to, for the caller's log line and metrics. */
export type CompactionRun =
  /** It ran: `operations` may be 0 when nothing had been finished that long. */
  | { outcome: "compacted"; report: Extract<CompactResult, { ok: true }>; ms: number }
  /** The service refused (the journal does not verify): nothing was compacted. */
  | { outcome: "refused"; code: ErrorCode; message: string; ms: number }
  /** The store failed (unreachable, busy): nothing is known to have been compacted. */
  | { outcome: "failed"; error: unknown; ms: number };

export interface CompactionScheduleOptions {
  /** The operations service's compaction (it verifies the journal first and refuses a tampered one). */
  compact(options: { olderThanMs: number }): Promise<CompactResult>;
  /** ERRAND_COMPACT_AFTER: operations that finished longer ago than this are compacted (ms). */
  afterMs: number;
  /** Told how every run went. */
  report(run: CompactionRun): void;
  /** Default JOURNAL_COMPACTION_INTERVAL_MS. */
  intervalMs?: number;
  /** Starts the repeating timer and returns its stop; tests pass one they fire by hand. Default: an unref'd setInterval. */
  every?: (tick: () => void, intervalMs: number) => () => void;
  /** Measures each run's duration. Default Date.now. */
  clock?: () => number;
}

export interface CompactionSchedule {
  /** Compacts now, or answers the run in progress when one is (runs never overlap). */
  runNow(): Promise<CompactionRun>;
  /** Stops the timer and waits for a run in progress. */
  stop(): Promise<void>;
}

function everyInterval(tick: () => void, intervalMs: number): () => void {
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Compacts the journal at start and then once per interval, one run at a time. States:
 *   IDLE ──tick or runNow──> RUNNING ──run settles──> IDLE;  IDLE | RUNNING ──stop──> STOPPED.
 * A tick that finds a run in progress is dropped, not queued, so a slow compaction (a long journal to
 * verify) never piles up runs behind it. A run never throws: its failure is reported like its success.
 */
export function startCompactionSchedule(options: CompactionScheduleOptions): CompactionSchedule {
  const clock = options.clock ?? Date.now;
  let running: Promise<CompactionRun> | undefined;
  let stopped = false;

  const run = async (): Promise<CompactionRun> => {
    const started = clock();
    let result: CompactionRun;
    try {
      const compacted = await options.compact({ olderThanMs: options.afterMs });
      result = compacted.ok
        ? { outcome: "compacted", report: compacted, ms: clock() - started }
        : { outcome: "refused", code: compacted.code, message: compacted.message, ms: clock() - started };
    } catch (error) {
      result = { outcome: "failed", error, ms: clock() - started };
    }
    options.report(result);
    return result;
  };

  const runNow = (): Promise<CompactionRun> => {
    running ??= run().finally(() => {
      running = undefined;
    });
    return running;
  };

  const stopTimer = (options.every ?? everyInterval)(() => {
    if (!stopped && running === undefined) void runNow();
  }, options.intervalMs ?? JOURNAL_COMPACTION_INTERVAL_MS);
  void runNow();

  return {
    runNow,
    async stop() {
      stopped = true;
      stopTimer();
      await running;
    },
  };
}
