import { createErrand } from "../../app/createErrand.js";
import type { Errand } from "../../app/createErrand.js";
import type { HomeAccess } from "../../app/masterKey.js";
import type { ExecuteTask } from "../../executor/executeTaskTypes.js";
import type { RunnerEvent } from "../../runner/runnerTypes.js";
import type { CommandContext } from "./commandContext.js";
import { createExecutor } from "./executorFactory.js";
import type { ExecutorSource } from "../../app/wiredExecutor.js";

/** errand as one CLI command opens it (the composition root, app/createErrand). */
export type OpenedOperations = Errand;

/**
 * Opens errand for one command: app/createErrand with the command's environment, the CLI's executor
 * (notices on stderr, revealed values scrubbed from output) and, for commands that run attempts,
 * how each attempt is wrapped and how runner events are shown.
 */
export async function openOperations(
  ctx: CommandContext,
  options: {
    executor?: ExecutorSource;
    aroundAttempt?: (execute: ExecuteTask) => ExecuteTask;
    onRunnerEvent?: (event: RunnerEvent) => void;
    access?: HomeAccess;
    allowPrivate?: readonly string[];
    longLived?: boolean;
  } = {},
): Promise<OpenedOperations> {
  return createErrand({
    env: ctx.env,
    executor: options.executor ?? createExecutor,
    executorSettings: { allowPrivate: options.allowPrivate ?? [], ...(options.longLived === undefined ? {} : { longLived: options.longLived }) },
    ...(options.access === undefined ? {} : { access: options.access }),
    ...(options.aroundAttempt === undefined ? {} : { aroundAttempt: options.aroundAttempt }),
    ...(options.onRunnerEvent === undefined ? {} : { onRunnerEvent: options.onRunnerEvent }),
  });
}
