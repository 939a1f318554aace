import { setTimeout as sleep } from "node:timers/promises";
import type { RunnerEvent } from "../../../runner/runnerTypes.js";
import type { AttemptReport, RunQueueReport } from "../../../runner/runnerTypes.js";
import type { RecoveredLease } from "../../../store/Store.js";
import { flagOption, listOption } from "../commandContext.js";
import type { Command, CommandContext } from "../commandContext.js";
import { EXIT } from "../exitCodes.js";
import { createExecutor } from "../executorFactory.js";
import type { ExecutorFactoryOptions, WiredExecutor } from "../executorFactory.js";
import { integerOption } from "../integerOption.js";
import { openOperations } from "../openOperations.js";
import { printEnvelope } from "../jsonEnvelope.js";
import { printFailure } from "../operationOutput.js";
import { UsageError } from "../usageError.js";
import { printErr, printOut } from "../output.js";
import { withOperations } from "../withOperations.js";

/** How long --watch sleeps when the queue is empty before it looks again (ms). */
const WATCH_IDLE_MS = 1_000;

type ExecutorSource = (options: ExecutorFactoryOptions) => WiredExecutor | Promise<WiredExecutor>;

/** The runner command over a given executor source; the CLI uses createExecutor, tests a fake. */
export function createRunnerCommand(source: ExecutorSource): Command {
  return {
    name: "runner",
    summary: "run queued operations now (recover expired leases first)",
    options: {
      json: { type: "boolean" },
      max: { type: "string" },
      "budget-ms": { type: "string" },
      watch: { type: "boolean" },
      "allow-private": { type: "string", multiple: true },
    },
    maxPositionals: 0,
    run: (ctx) => runRunner(ctx, source),
    help: `errand runner [--max N] [--budget-ms MS] [--watch] [--allow-private HOST:PORT]... [--json]
  Recovers operations whose runner vanished (expired leases), then claims and runs eligible
  operations one at a time until none is eligible, N attempts ran or MS milliseconds passed.
  --watch keeps looking for work until interrupted (SIGINT/SIGTERM), finishing the attempt in hand.
  Start several runners to work in parallel; each operation is claimed by one at a time.
  Progress goes to stderr; --json prints the envelope of docs/CLI.md (status: why it stopped;
  data {recovered, attempts, refused, stoppedBecause}). An operation whose stored row does not
  match its journal is never run: it is listed in refused (journal_tampered). Exit 0 when it ran,
  whatever the tasks' outcomes (collect them with "errand collect").`,
  };
}

export const runnerCommand: Command = createRunnerCommand(createExecutor);

async function runRunner(ctx: CommandContext, source: ExecutorSource): Promise<number> {
  const json = flagOption(ctx, "json");
  const max = integerOption(ctx, "max", 1, Number.MAX_SAFE_INTEGER);
  const budgetMs = integerOption(ctx, "budget-ms", 0, Number.MAX_SAFE_INTEGER);
  const watch = flagOption(ctx, "watch");
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);

  let executor: WiredExecutor | undefined;
  try {
    return await withOperations(
      ctx,
      async ({ service, config }) => {
        try {
          executor = await source({ env: ctx.env, allowPrivate: listOption(ctx, "allow-private"), browserTimeoutMs: config.browserTimeoutMs });
        } catch (error) {
          if (error instanceof UsageError) throw error;
          return printFailure({ code: "configuration_error", message: error instanceof Error ? error.message : String(error) }, json);
        }
        const started = Date.now();
        const total: RunQueueReport = { recovered: [], attempts: [], refused: [], stoppedBecause: "drained" };
        for (;;) {
          const remainingMax = max === undefined ? undefined : max - total.attempts.length;
          const remainingBudget = budgetMs === undefined ? undefined : Math.max(0, budgetMs - (Date.now() - started));
          const report = await service.runQueue({
            signal: stop.signal,
            ...(remainingMax === undefined ? {} : { max: remainingMax }),
            ...(remainingBudget === undefined ? {} : { budgetMs: remainingBudget }),
          });
          total.recovered.push(...report.recovered);
          total.attempts.push(...report.attempts);
          total.refused.push(...report.refused.filter((r) => !total.refused.some((known) => known.operationId === r.operationId)));
          total.stoppedBecause = report.stoppedBecause;
          if (!watch || report.stoppedBecause !== "drained") break;
          await sleep(WATCH_IDLE_MS, undefined, { signal: stop.signal }).catch(() => undefined);
          if (stop.signal.aborted) {
            total.stoppedBecause = "aborted";
            break;
          }
        }
        if (json) printEnvelope({ ok: true, status: total.stoppedBecause, data: { ...total } });
        else printOut(summarize(total.recovered, total.attempts, total.refused.length, total.stoppedBecause));
        return EXIT.pass;
      },
      (c) => openOperations(c, { ...(json ? {} : { onRunnerEvent: printEvent }), execute: (task, context) => requireExecutor(executor).execute(task, context) }),
    );
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await executor?.shutdown();
  }
}

function requireExecutor(executor: WiredExecutor | undefined): WiredExecutor {
  if (executor === undefined) throw new Error("the executor is not ready");
  return executor;
}

function printEvent(event: RunnerEvent): void {
  switch (event.kind) {
    case "claimed":
      printErr(`claimed   ${event.operationId} (attempt ${event.attempt})`);
      break;
    case "finished":
      printErr(`finished  ${event.operationId}: ${event.status} (${event.phase})`);
      break;
    case "requeued":
      printErr(`requeued  ${event.operationId}: attempt ${event.attempt} failed; eligible again in ${event.delayMs} ms`);
      break;
    case "recovered":
      printErr(`recovered ${event.operationId}: its runner vanished; ${event.resolution === "requeue" ? "back in the queue" : `ended ${event.phase}`}`);
      break;
    case "lease_lost":
      printErr(`lost      ${event.operationId}: another runner owns it now; this attempt's outcome was discarded`);
      break;
    case "abandoned":
      printErr(`abandoned ${event.operationId}: the browser did not return after it was stopped; its lease will expire and recovery decides`);
      break;
    case "store_error":
      printErr(`warning   ${event.operationId}: ${event.message}`);
      break;
    case "refused":
      printErr(`refused   ${event.operationId}: journal_tampered, ${event.reason}; not run (errand journal verify)`);
      break;
    case "progress":
      break;
  }
}

function summarize(recovered: RecoveredLease[], attempts: AttemptReport[], refused: number, stoppedBecause: RunQueueReport["stoppedBecause"]): string {
  const finished = attempts.filter((a) => a.outcome === "finished").length;
  const requeued = attempts.filter((a) => a.outcome === "requeued").length;
  const lost = attempts.filter((a) => a.outcome === "lease_lost" || a.outcome === "abandoned").length;
  const why = { drained: "nothing else is eligible", max: "--max reached", budget: "--budget-ms spent", aborted: "interrupted" }[stoppedBecause];
  return `ran ${attempts.length} attempt(s): ${finished} finished, ${requeued} requeued, ${lost} lost; recovered ${recovered.length} expired lease(s);${refused === 0 ? "" : ` refused ${refused} tampered operation(s) (journal_tampered);`} stopped: ${why}`;
}
