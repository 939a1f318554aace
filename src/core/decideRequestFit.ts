import { attemptBudgetMs, attemptWorstCaseMs } from "./attemptTime.js";

/**
 * Time kept at the end of a request to build and send the answer (ms): an attempt started within a
 * request must have ended this long before the platform's limit.
 */
export const ANSWER_MARGIN_MS = 2_000;

/**
 * Where an attempt at a task runs when the platform cuts every request at a limit:
 * "within_request": its longest possible attempt ends before the request's deadline, so it may start now;
 * "queued": it might not, so it is left queued for a runner that has the time (the interval entry or
 * a runner on another host sharing the store). worstCaseMs is that longest attempt (attemptTime.ts).
 */
export type RequestFit = { runs: "within_request"; worstCaseMs: number } | { runs: "queued"; worstCaseMs: number; availableMs: number };

/**
 * The moment (ms, the process clock) by which every attempt a request starts must have ended: its
 * arrival plus the platform's limit, less the time its answer needs.
 */
export function requestDeadlineMs(arrivedMs: number, limitMs: number): number {
  return arrivedMs + limitMs - ANSWER_MARGIN_MS;
}

/**
 * Whether an attempt at a task may start within a request. `availableMs` is what is left until the
 * request's deadline (requestDeadlineMs less now), or null when no limit cuts the request (then
 * everything runs within it, as a server with no limit always did).
 *
 * The rule: it runs within the request only when its longest possible attempt, counted the way the
 * runner enforces it, fits what is left; exactly equal fits. The bound is the worst case, never the
 * usual duration, because an attempt the platform cuts off mid-way is not merely slow: its lease
 * stays until it expires and lease recovery decides, so a read runs again later and a write that had
 * crossed its mutation boundary ends UNCERTAIN. Queuing costs a wait; being cut can cost certainty.
 * A budget that is not a non-negative number fits no limit.
 */
export function decideRequestFit(taskMs: number | undefined, defaultTaskMs: number, availableMs: number | null): RequestFit {
  const worstCaseMs = attemptWorstCaseMs(attemptBudgetMs(taskMs, defaultTaskMs));
  if (availableMs === null) return { runs: "within_request", worstCaseMs };
  if (Number.isFinite(worstCaseMs) && worstCaseMs <= availableMs) return { runs: "within_request", worstCaseMs };
  return { runs: "queued", worstCaseMs, availableMs };
}

/**
 * The largest timeouts.taskMs (whole ms) whose longest attempt fits `availableMs`, or null when not
 * even an empty budget fits: what to tell a caller whose task was queued for not fitting a request.
 * The worst case grows with the budget, so the answer is found by bisection.
 */
export function largestFittingTaskMs(availableMs: number): number | null {
  if (!Number.isFinite(availableMs) || attemptWorstCaseMs(0) > availableMs) return null;
  let fits = 0;
  let fails = Math.floor(availableMs) + 1;
  while (fails - fits > 1) {
    const middle = Math.floor((fits + fails) / 2);
    if (attemptWorstCaseMs(middle) <= availableMs) fits = middle;
    else fails = middle;
  }
  return fits;
}
