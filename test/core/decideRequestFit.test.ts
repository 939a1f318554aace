// Whether an attempt may start within a request the platform cuts (ERRAND_REQUEST_LIMIT): the longest
// attempt the runner allows, plus the resolution's margin, against what is left of the request.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { attemptGraceMs, attemptWorstCaseMs, RESOLUTION_MARGIN_MS } from "../../src/core/attemptTime.js";
import { ANSWER_MARGIN_MS, decideRequestFit, largestFittingTaskMs, requestDeadlineMs } from "../../src/core/decideRequestFit.js";

const DEFAULT_TASK_MS = 30_000;

test("decideRequestFit: a table of tasks against what is left of a request", () => {
  // 30 s of browser time: 5 s grace to return, 5 s more before the runner abandons it, 5 s to write the receipt.
  const thirty = 30_000 + 2 * 5_000 + RESOLUTION_MARGIN_MS;
  const cases: { name: string; taskMs: number | undefined; availableMs: number | null; runs: "within_request" | "queued"; worstCaseMs: number }[] = [
    { name: "no limit: everything runs within the request", taskMs: 600_000, availableMs: null, runs: "within_request", worstCaseMs: 600_000 + 10_000 + 5_000 },
    { name: "missing timeouts: the default budget", taskMs: undefined, availableMs: 60_000, runs: "within_request", worstCaseMs: thirty },
    { name: "exactly at the limit fits", taskMs: undefined, availableMs: thirty, runs: "within_request", worstCaseMs: thirty },
    { name: "one millisecond short does not", taskMs: undefined, availableMs: thirty - 1, runs: "queued", worstCaseMs: thirty },
    { name: "a short budget gets a fifth as grace", taskMs: 10_000, availableMs: 19_000, runs: "within_request", worstCaseMs: 10_000 + 4_000 + 5_000 },
    { name: "the smallest grace is 200 ms", taskMs: 100, availableMs: 5_500, runs: "within_request", worstCaseMs: 100 + 400 + 5_000 },
    { name: "the longest task against a minute", taskMs: 600_000, availableMs: 60_000, runs: "queued", worstCaseMs: 615_000 },
    { name: "nothing left", taskMs: 1_000, availableMs: 0, runs: "queued", worstCaseMs: 1_000 + 400 + 5_000 },
    { name: "past the deadline", taskMs: 1_000, availableMs: -5_000, runs: "queued", worstCaseMs: 1_000 + 400 + 5_000 },
    { name: "a huge budget", taskMs: Number.MAX_SAFE_INTEGER, availableMs: 86_400_000, runs: "queued", worstCaseMs: Number.MAX_SAFE_INTEGER + 15_000 },
    { name: "NaN budget fits no limit", taskMs: Number.NaN, availableMs: 86_400_000, runs: "queued", worstCaseMs: Number.POSITIVE_INFINITY },
    { name: "negative budget fits no limit", taskMs: -1, availableMs: 86_400_000, runs: "queued", worstCaseMs: Number.POSITIVE_INFINITY },
    {
      name: "infinite budget fits not even an infinite wait",
      taskMs: Number.POSITIVE_INFINITY,
      availableMs: Number.POSITIVE_INFINITY,
      runs: "queued",
      worstCaseMs: Number.POSITIVE_INFINITY,
    },
    { name: "NaN time left fits nothing", taskMs: 1_000, availableMs: Number.NaN, runs: "queued", worstCaseMs: 1_000 + 400 + 5_000 },
  ];
  for (const c of cases) {
    const fit = decideRequestFit(c.taskMs, DEFAULT_TASK_MS, c.availableMs);
    assert.equal(fit.runs, c.runs, c.name);
    assert.equal(fit.worstCaseMs, c.worstCaseMs, c.name);
  }
});

test("decideRequestFit: the worst case never undercuts what the runner allows, and fitting is monotonic", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 10 * 86_400_000 }),
      fc.integer({ min: 100, max: 3_600_000 }),
      fc.integer({ min: -86_400_000, max: 10 * 86_400_000 }),
      fc.integer({ min: 0, max: 86_400_000 }),
      (taskMs, defaultTaskMs, availableMs, more) => {
        const fit = decideRequestFit(taskMs, defaultTaskMs, availableMs);
        // The runner abandons the executor at budget + 2 graces; the resolution's margin comes on top.
        assert.ok(fit.worstCaseMs >= taskMs + 2 * attemptGraceMs(taskMs) + RESOLUTION_MARGIN_MS);
        assert.equal(fit.runs === "within_request", fit.worstCaseMs <= availableMs);
        // More time left never turns a fit into a queue; a longer budget never turns a queue into a fit.
        if (fit.runs === "within_request") assert.equal(decideRequestFit(taskMs, defaultTaskMs, availableMs + more).runs, "within_request");
        else assert.equal(decideRequestFit(taskMs + more, defaultTaskMs, availableMs).runs, "queued");
        // Without a limit everything runs within the request.
        assert.equal(decideRequestFit(taskMs, defaultTaskMs, null).runs, "within_request");
      },
    ),
  );
});

test("largestFittingTaskMs: the largest budget that fits, and one more millisecond does not", () => {
  assert.equal(largestFittingTaskMs(attemptWorstCaseMs(0) - 1), null);
  assert.equal(largestFittingTaskMs(Number.NaN), null);
  assert.equal(largestFittingTaskMs(58_000), 43_000);
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 86_400_000 }), (availableMs) => {
      const largest = largestFittingTaskMs(availableMs);
      if (largest === null) {
        assert.ok(attemptWorstCaseMs(0) > availableMs);
        return;
      }
      assert.ok(attemptWorstCaseMs(largest) <= availableMs);
      assert.ok(attemptWorstCaseMs(largest + 1) > availableMs);
    }),
  );
});

test("requestDeadlineMs keeps the answer's margin before the platform's limit", () => {
  assert.equal(requestDeadlineMs(1_000, 60_000), 61_000 - ANSWER_MARGIN_MS);
});
