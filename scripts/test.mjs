// Runs every *.test.ts under test/ with Node's built-in test runner (TypeScript through tsx).
// Node 20's --test does not expand globs itself, so the files are listed here.
// Usage: node scripts/test.mjs [--fast] [substring filter ...]
// --fast leaves out the files that start Chromium or child processes (see SLOW below): the inner
// loop's set of unit, SQLite and in-process tests (`npm run check:fast`).
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { availableParallelism } from "node:os";

function findTests(dir) {
  const found = [];
  for (const entry of readdirSync(dir)) {
    const full = join(dir, entry);
    if (entry === "fixtures" || entry === "node_modules") continue;
    if (statSync(full).isDirectory()) found.push(...findTests(full));
    else if (entry.endsWith(".test.ts")) found.push(full);
  }
  return found;
}

/** A test file that uses one of these starts a browser or a child process, so it is not "fast". */
const SLOW = /startFixtureSites|createLocalProvider|startBrowserlessServer|spawnRunner\(|spawn\(|execFile\(|launchChromium|chromium\.launch\(/;

const args = process.argv.slice(2);
const fast = args.includes("--fast");
const filters = args.filter((a) => a !== "--fast");
const files = findTests("test")
  .filter((f) => filters.length === 0 || filters.some((needle) => f.includes(needle)))
  .filter((f) => !fast || !SLOW.test(readFileSync(f, "utf8")))
  .sort();
if (files.length === 0) {
  console.error("no test files matched");
  process.exit(2);
}
// Node 20 runs one test file at a time on a 2-core machine (its default is cores - 1). The fast set
// has no browser and no child process, so its files can share the cores; the whole suite keeps the
// default because Chromium-heavy files running side by side turn timing margins into flakes.
const concurrency = fast ? [`--test-concurrency=${Math.max(2, availableParallelism())}`] : [];
const result = spawnSync(process.execPath, ["--import", "tsx", "--test", ...concurrency, "--test-reporter=spec", ...files], {
  stdio: "inherit",
});
process.exit(result.status ?? 1);
