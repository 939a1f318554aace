import { requestDeadlineMs } from "../../core/decideRequestFit.js";
import type { OperationsService } from "../../operations/serviceTypes.js";
import type { RunQueueOptions, RunQueueReport } from "../../runner/runnerTypes.js";
import type { HttpLogger } from "./httpLogger.js";
import { errorMessage } from "../../errors/errorMessage.js";

/**
 * Runs the queue inside the serving process, one drain at a time. States:
 *   IDLE ──kick──> DRAINING ──queue empty, no kick meanwhile──> IDLE
 *   DRAINING ──kick──> DRAINING (marked: one more pass when this one ends, so work submitted
 *                                 while the drain was finishing is never left behind)
 *   any ──close──> CLOSED (the attempt in hand finishes; nothing new is claimed)
 * A drain never rejects: a failure is logged and reported as `lastError`.
 *
 * With a request limit (ERRAND_REQUEST_LIMIT: a platform that cuts every request), each pass claims
 * only what can end within the request that asked for it (runner/runQueue deadlineMs); a pass marked
 * by several kicks ends by the earliest of their deadlines. Without one, a drain runs everything due.
 */
export interface QueueDriver {
  /**
   * Starts a drain unless one runs; resolves with the report of the drain this kick joined.
   * `arrivedMs`: when the request that kicks arrived (default now), from which its deadline is counted.
   */
  kick(arrivedMs?: number): Promise<RunQueueReport>;
  /**
   * Runs one operation now, beside any drain, if its longest attempt can end within the request
   * that arrived at `arrivedMs` (with a request limit; without one, whatever it takes). Never
   * rejects; the report lists it in `unfit` when it was left queued for not fitting.
   */
  runWithin(operationId: string, arrivedMs: number): Promise<RunQueueReport>;
  /**
   * Resolves when no drain and no run of runWithin is in progress here (never rejects). A request's
   * answer may leave before the attempt it started has ended (its wait is shorter than the attempt);
   * a fetch-handler entry hands this to the platform's waitUntil, where there is one, so the attempt
   * is not cut with the answer.
   */
  settled(): Promise<void>;
  /** The platform's request limit (ms) each run here keeps within, or null when nothing cuts a request. */
  readonly requestLimitMs: number | null;
  readonly draining: boolean;
  readonly lastError: string | null;
  close(): Promise<void>;
}

/** The earlier of two deadlines, undefined standing for none. */
function earliest(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
}

/**
 * `requestLimitMs`: the platform's request limit (config/requestLimit: ERRAND_REQUEST_LIMIT), for an
 * app with no worker pool on a runtime that cuts requests; absent or null, nothing is cut.
 */
export function createQueueDriver(options: { service: OperationsService; logger: HttpLogger; requestLimitMs?: number | null }): QueueDriver {
  const limitMs = options.requestLimitMs ?? null;
  const stop = new AbortController();
  let current: Promise<RunQueueReport> | undefined;
  let again = false;
  let againDeadline: number | undefined;
  let lastError: string | null = null;
  const alongside = new Set<Promise<RunQueueReport>>();

  const deadlineOf = (arrivedMs: number): number | undefined => (limitMs === null ? undefined : requestDeadlineMs(arrivedMs, limitMs));
  const runOnce = (extra: Omit<RunQueueOptions, "signal">): Promise<RunQueueReport> => options.service.runQueue({ signal: stop.signal, ...extra });

  const drain = async (firstDeadline: number | undefined): Promise<RunQueueReport> => {
    const total: RunQueueReport = { recovered: [], attempts: [], refused: [], stoppedBecause: "drained" };
    let deadlineMs = firstDeadline;
    try {
      do {
        again = false;
        const report = await runOnce(deadlineMs === undefined ? {} : { deadlineMs });
        total.recovered.push(...report.recovered);
        total.attempts.push(...report.attempts);
        total.refused.push(...report.refused);
        if (report.unfit !== undefined)
          total.unfit = [...(total.unfit ?? []), ...report.unfit.filter((u) => !total.unfit?.some((k) => k.operationId === u.operationId))];
        total.stoppedBecause = report.stoppedBecause;
        deadlineMs = againDeadline;
        againDeadline = undefined;
      } while (again && !stop.signal.aborted);
      lastError = null;
    } catch (error) {
      lastError = errorMessage(error);
      options.logger.error("Running the queue failed", error);
    } finally {
      current = undefined;
    }
    return total;
  };

  const aborted = (): Promise<RunQueueReport> => Promise.resolve({ recovered: [], attempts: [], refused: [], stoppedBecause: "aborted" });

  return {
    kick(arrivedMs = Date.now()) {
      if (stop.signal.aborted) return aborted();
      const deadlineMs = deadlineOf(arrivedMs);
      if (current !== undefined) {
        again = true;
        againDeadline = earliest(againDeadline, deadlineMs);
        return current;
      }
      current = drain(deadlineMs);
      return current;
    },
    runWithin(operationId, arrivedMs) {
      if (stop.signal.aborted) return aborted();
      const deadlineMs = deadlineOf(arrivedMs);
      const run = runOnce({ onlyOperationId: operationId, ...(deadlineMs === undefined ? {} : { deadlineMs }) }).catch((error: unknown): RunQueueReport => {
        lastError = errorMessage(error);
        options.logger.error("Running an operation within its request failed", error);
        return { recovered: [], attempts: [], refused: [], stoppedBecause: "aborted" };
      });
      alongside.add(run);
      void run.finally(() => alongside.delete(run));
      return run;
    },
    async settled() {
      while (current !== undefined || alongside.size > 0) await Promise.all([current, ...alongside]);
    },
    requestLimitMs: limitMs,
    get draining() {
      return current !== undefined;
    },
    get lastError() {
      return lastError;
    },
    async close() {
      stop.abort();
      if (current !== undefined) await current;
      await Promise.all([...alongside]);
    },
  };
}
