import type { ExecuteTask } from "../executor/executeTaskTypes.js";
import type { ErrandMetrics } from "../interfaces/http/observability/errandMetrics.js";
import type { HttpLogger } from "../interfaces/http/httpLogger.js";
import type { RunnerEvent } from "../runner/runnerTypes.js";

/**
 * What a serving process records of each attempt and runner event: one log line per attempt (ids,
 * provider, status, duration; never the task's content or page text), lease recoveries and losses
 * as warnings, and the metrics. The metrics exist only once the HTTP side has started, so they are
 * read at each event.
 */
export function observeServedAttempts(
  logger: HttpLogger,
  metrics: () => ErrandMetrics | undefined,
): { aroundAttempt: (execute: ExecuteTask) => ExecuteTask; onRunnerEvent: (event: RunnerEvent) => void } {
  return {
    aroundAttempt: (execute) => async (task, context) => {
      const started = Date.now();
      const outcome = await execute(task, context);
      const ms = Date.now() - started;
      metrics()?.recordAttempt(outcome.receipt, ms);
      logger.info("attempt", {
        operationId: task.operationId,
        attempt: context.attempt,
        provider: outcome.receipt.provider,
        status: outcome.receipt.status,
        error: outcome.receipt.error?.code ?? null,
        ms,
      });
      return outcome;
    },
    onRunnerEvent: (event) => {
      if (event.kind === "finished") metrics()?.recordFinished(event.status, event.provider);
      else if (event.kind === "recovered") {
        metrics()?.recordLeaseRecovery(event.resolution);
        logger.warn("lease recovered", { operationId: event.operationId, resolution: event.resolution, phase: event.phase });
      } else if (event.kind === "lease_lost") {
        logger.warn("lease lost", { operationId: event.operationId, attempt: event.attempt, loss: event.loss, phase: event.phase });
      }
    },
  };
}
