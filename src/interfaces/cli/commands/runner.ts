import type { RunnerEvent } from "../../../runner/runnerTypes.js";
import type { AttemptReport, RunQueueReport } from "../../../runner/runnerTypes.js";
import type { RecoveredLease } from "../../../store/Store.js";
import { flagOption, listOption } from "../commandContext.js";
import type { Command, CommandContext } from "../commandContext.js";
import { EXIT } from "../exitCodes.js";
import { createExecutor } from "../executorFactory.js";
import type { ExecutorSource } from "../../../app/wiredExecutor.js";
import { ErrandError } from "../../../errors/errandError.js";
import { integerOption } from "../integerOption.js";
import { openOperations } from "../openOperations.js";
import { printEnvelope } from "../jsonEnvelope.js";
import { printFailure } from "../operationOutput.js";
import { UsageError } from "../usageError.js";
import { printErr, printOut } from "../output.js";
import { withOperations } from "../withOperations.js";
import { errorMessage } from "../../../errors/errorMessage.js";

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
      concurrency: { type: "string" },
      "allow-private": { type: "string", multiple: true },
    },
    maxPositionals: 0,
    run: (ctx) => runRunner(ctx, source),
    help: `errand runner [--max N] [--budget-ms MS] [--watch [--concurrency N]] [--allow-private HOST:PORT]... [--json]
  Recovers operations whose lease ran out without renewal, then claims and runs eligible
  operations one at a time until none is eligible, N attempts ran or MS milliseconds passed.
  --watch runs errand serve's worker pool without the HTTP server: up to --concurrency attempts at
  once (default ERRAND_CONCURRENCY, 2), each in its own browser context; it picks up new work within
  a second, runs delayed read-only retries when they fall due, recovers expired leases, and keeps
  going until interrupted (SIGINT/SIGTERM) or --budget-ms passes; then no new attempt starts and
  running ones get ERRAND_SHUTDOWN_GRACE_MS (default 30 s) to finish (--max is not used with --watch).
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
  const concurrency = integerOption(ctx, "concurrency", 1, 64);
  if (concurrency !== undefined && !watch) throw new UsageError("--concurrency applies to --watch (a single pass runs one attempt at a time)");
  if (max !== undefined && watch) throw new UsageError("--max is not used with --watch (it runs until interrupted or --budget-ms passes)");
  const events = new Set<(event: RunnerEvent) => void>();
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);

  try {
    return await withOperations(
      ctx,
      async ({ service, config, executor }) => {
        try {
          // Built before anything is claimed, so a setting it cannot use stops the runner with its words.
          await executor();
        } catch (error) {
          if (error instanceof ErrandError) throw error;
          return printFailure({ code: "configuration_error", message: errorMessage(error) }, json);
        }
        const total: RunQueueReport = watch
          ? await watchQueue(service, config.shutdownGraceMs, concurrency, budgetMs, stop.signal, events)
          : await runOnce(service, max, budgetMs, stop.signal);
        if (json) printEnvelope({ ok: true, status: total.stoppedBecause, data: { ...total } });
        else printOut(summarize(total.recovered, total.attempts, total.refused.length, total.stoppedBecause));
        return EXIT.pass;
      },
      (c) =>
        openOperations(c, {
          executor: source,
          allowPrivate: listOption(ctx, "allow-private"),
          longLived: watch,
          onRunnerEvent: (event) => {
            if (!json) printEvent(event);
            for (const listener of events) listener(event);
          },
        }),
    );
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

type Service = Awaited<ReturnType<typeof openOperations>>["service"];

/** One pass: claim and run, one attempt at a time, until nothing is eligible, --max or --budget-ms. */
async function runOnce(service: Service, max: number | undefined, budgetMs: number | undefined, signal: AbortSignal): Promise<RunQueueReport> {
  return service.runQueue({ signal, ...(max === undefined ? {} : { max }), ...(budgetMs === undefined ? {} : { budgetMs }) });
}

/** --watch: the worker pool until interrupted or the budget is spent; the report is gathered from runner events. */
async function watchQueue(
  service: Service,
  graceMs: number,
  concurrency: number | undefined,
  budgetMs: number | undefined,
  signal: AbortSignal,
  events: Set<(event: RunnerEvent) => void>,
): Promise<RunQueueReport> {
  const total: RunQueueReport = { recovered: [], attempts: [], refused: [], stoppedBecause: "aborted" };
  const listener = (event: RunnerEvent): void => {
    if (event.kind === "recovered") total.recovered.push({ operationId: event.operationId, resolution: event.resolution, phase: event.phase });
    else if (event.kind === "finished")
      total.attempts.push({ operationId: event.operationId, attempt: event.attempt, outcome: "finished", phase: event.phase, status: event.status });
    else if (event.kind === "requeued")
      total.attempts.push({ operationId: event.operationId, attempt: event.attempt, outcome: "requeued", phase: "queued", status: null });
    else if (event.kind === "refused") total.refused.push({ operationId: event.operationId, reason: event.reason });
    else if (event.kind === "lease_lost")
      total.attempts.push({ operationId: event.operationId, attempt: event.attempt, outcome: event.kind, phase: event.phase, status: null });
    else if (event.kind === "abandoned")
      total.attempts.push({ operationId: event.operationId, attempt: event.attempt, outcome: event.kind, phase: null, status: null });
  };
  events.add(listener);
  const pool = await service.startWorkers(concurrency === undefined ? {} : { concurrency });
  // Said once the pool runs (leases recovered, queued work resumed), so an operator or a script knows new submits are picked up from here on.
  printErr(`errand runner: watching the queue${concurrency === undefined ? "" : ` (up to ${concurrency} attempts at once)`}; SIGINT/SIGTERM stops it`);
  await new Promise<void>((resolve) => {
    const timer =
      budgetMs === undefined
        ? undefined
        : setTimeout(() => {
            total.stoppedBecause = "budget";
            resolve();
          }, budgetMs);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve();
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  const { unfinished } = await pool.close(graceMs);
  if (unfinished > 0) printErr(`stopping: ${unfinished} attempt(s) still running were left to their leases; the next runner recovers them`);
  events.delete(listener);
  return total;
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
      printErr(
        `recovered ${event.operationId}: its lease ran out without renewal (its runner crashed, was killed, lost the database, or is alive but starved of CPU); ${event.resolution === "requeue" ? "back in the queue" : `ended ${event.phase}`}`,
      );
      break;
    case "lease_lost":
      printErr(
        event.loss === "expired"
          ? `lost      ${event.operationId}: this runner's lease ran out before it could renew it (starved of CPU or slow to reach the store); attempt ${event.attempt} was stopped and ${event.phase === "queued" ? "is back in the queue" : `ended ${event.phase ?? "unknown"}`}`
          : `lost      ${event.operationId}: another runner recovered it after this runner's lease ran out; this attempt's outcome was discarded`,
      );
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
