// How many cases a property test generates. `npm run check:fast` (scripts/test.mjs --fast sets
// ERRAND_TEST_FAST=1) is the inner loop and takes the small count; the whole suite (`npm test`,
// CI) takes the full one. Not a test file.

const FAST = process.env["ERRAND_TEST_FAST"] === "1";

/** fast-check parameters: `full` runs in the whole suite, `fast` in the inner loop. */
export function propertyRuns(full: number, fast: number = Math.max(10, Math.ceil(full / 10))): { numRuns: number } {
  return { numRuns: FAST ? Math.min(full, fast) : full };
}
