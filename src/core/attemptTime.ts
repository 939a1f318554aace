/**
 * How long one attempt can take, from its claim to its resolution written: the one home of these
 * bounds. The runner enforces them (runner/runAttempt: the executor's signal is aborted one grace
 * past the budget, and the runner stops waiting for it one grace later); decideRequestFit reads them
 * to judge whether an attempt can end within what is left of a request.
 */

/** The browser time an attempt gets: the task's timeouts.taskMs, else the configured default (ERRAND_BROWSER_TIMEOUT_MS). */
export function attemptBudgetMs(taskMs: number | undefined, defaultTaskMs: number): number {
  return taskMs ?? defaultTaskMs;
}

/**
 * Time the executor gets past the task's own budget to notice it and return a receipt, and again
 * after its signal is aborted before the runner abandons it (ms): a fifth of the budget, 0.2–5 s.
 */
export function attemptGraceMs(budgetMs: number): number {
  return Math.min(5_000, Math.max(200, Math.floor(budgetMs / 5)));
}

/**
 * Time kept after the executor returns for what the runner writes before the attempt is resolved:
 * the held extracted values, the evidence artifacts and the fenced resolution with its receipt. The
 * runner does not cut these writes; this is the allowance a decision counts on, not a timer.
 */
export const RESOLUTION_MARGIN_MS = 5_000;

/**
 * The longest an attempt at a task with this budget can hold its caller: the budget, the executor's
 * grace, the grace after the abort after which the runner abandons the executor, and the
 * resolution's margin. Not finite (so it fits no limit) for a budget that is not a non-negative number.
 */
export function attemptWorstCaseMs(budgetMs: number): number {
  if (!Number.isFinite(budgetMs) || budgetMs < 0) return Number.POSITIVE_INFINITY;
  return budgetMs + 2 * attemptGraceMs(budgetMs) + RESOLUTION_MARGIN_MS;
}
