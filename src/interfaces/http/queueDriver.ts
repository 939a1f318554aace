import type { OperationsService } from "../../operations/serviceTypes.js";
import type { RunQueueReport } from "../../runner/runnerTypes.js";
import type { HttpLogger } from "./httpLogger.js";
import { errorMessage } from "../../errors/errorMessage.js";

/**
 * Runs the queue inside the serving process, one drain at a time. States:
 *   IDLE ──kick──> DRAINING ──queue empty, no kick meanwhile──> IDLE
 *   DRAINING ──kick──> DRAINING (marked: one more pass when this one ends, so work submitted
 *                                 while the drain was finishing is never left behind)
 *   any ──close──> CLOSED (the attempt in hand finishes; nothing new is claimed)
 * A drain never rejects: a failure is logged and reported as `lastError`.
 */
export interface QueueDriver {
  /** Starts a drain unless one runs; resolves with the report of the drain this kick joined. */
  kick(): Promise<RunQueueReport>;
  readonly draining: boolean;
  readonly lastError: string | null;
  close(): Promise<void>;
}

export function createQueueDriver(options: { service: OperationsService; logger: HttpLogger }): QueueDriver {
  const stop = new AbortController();
  let current: Promise<RunQueueReport> | undefined;
  let again = false;
  let lastError: string | null = null;

  const drain = async (): Promise<RunQueueReport> => {
    const total: RunQueueReport = { recovered: [], attempts: [], refused: [], stoppedBecause: "drained" };
    try {
      do {
        again = false;
        const report = await options.service.runQueue({ signal: stop.signal });
        total.recovered.push(...report.recovered);
        total.attempts.push(...report.attempts);
        total.refused.push(...report.refused);
        total.stoppedBecause = report.stoppedBecause;
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

  return {
    kick() {
      if (stop.signal.aborted) return Promise.resolve({ recovered: [], attempts: [], refused: [], stoppedBecause: "aborted" });
      if (current !== undefined) {
        again = true;
        return current;
      }
      current = drain();
      return current;
    },
    get draining() {
      return current !== undefined;
    },
    get lastError() {
      return lastError;
    },
    async close() {
      stop.abort();
      if (current !== undefined) await current;
    },
  };
}
