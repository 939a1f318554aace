// Runs every *.test.ts under test/ with Node's built-in test runner (TypeScript through tsx).
// Node 20's --test does not expand globs itself, so the files are listed here.
// Usage: node scripts/test.mjs [--fast] [substring filter ...]
// When a selected file uses PostgreSQL (test/fixtures/testPostgres.ts), a fresh database
// errand_test_<time>_<pid> is created on ERRAND_TEST_POSTGRES_URL's server (default: the local one,
// postgres://postgres@127.0.0.1:5432/postgres), passed to the tests as ERRAND_TEST_DATABASE_URL and
// dropped at the end. No server: those tests skip with a notice saying why (ERRAND_TEST_DATABASE_SKIP).
// --fast leaves out the files that start Chromium or child processes (see SLOW below): the inner
// loop's set of unit, SQLite and in-process tests (`npm run check:fast`).
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { URL } from "node:url";
import pg from "pg";

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

/**
 * A test file that uses one of these starts a browser or a child process, so it is not "fast"
 * (runErrand/startServe: test/support/errandProcess.ts spawns `errand` for the file). A file that
 * starts Chromium in a way no name here shows (the CLI run in process) says so with a "@slow" line.
 */
const SLOW = /startFixtureSites|createLocalProvider|startBrowserlessServer|spawnRunner\(|spawn\(|execFile\(|runErrand\(|startServe\(|launchChromium|chromium\.launch\(|@slow\b/;

const args = process.argv.slice(2);
const fast = args.includes("--fast");
const filters = args.filter((a) => a !== "--fast");
const selected = findTests("test")
  .filter((f) => filters.length === 0 || filters.some((needle) => f.includes(needle)))
  .sort();
const slowFiles = new Set(selected.filter((f) => SLOW.test(readFileSync(f, "utf8"))));
const files = fast ? selected.filter((f) => !slowFiles.has(f)) : selected;
if (files.length === 0) {
  console.error("no test files matched");
  process.exit(2);
}
// Node 20 runs one test file at a time on a 2-core machine (its default is cores - 1). Files with no
// browser and no child process can share the cores; Chromium-heavy files running side by side turn
// timing margins into flakes. So the run has two phases: the light files two (or more) at a time,
// then the heavy ones one at a time. --fast runs only the first phase.
const sharedCores = Math.max(2, availableParallelism());
const phases = [
  { name: "light files", files: files.filter((f) => !slowFiles.has(f)), concurrency: sharedCores },
  { name: "browser and process files", files: files.filter((f) => slowFiles.has(f)), concurrency: 1 },
].filter((phase) => phase.files.length > 0);

const ADMIN_URL = process.env.ERRAND_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/** Runs one statement on the server's admin database; returns the error instead of throwing. */
async function admin(sql) {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query(sql);
    return null;
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  } finally {
    await client.end().catch(() => undefined);
  }
}

const env = { ...process.env, ...(fast ? { ERRAND_TEST_FAST: "1" } : {}) };
let database;
if (files.some((f) => readFileSync(f, "utf8").includes("testPostgres"))) {
  const name = `errand_test_${Date.now()}_${process.pid}`;
  const failed = await admin(`CREATE DATABASE ${name}`);
  if (failed === null) {
    database = name;
    const url = new URL(ADMIN_URL);
    url.pathname = `/${name}`;
    env.ERRAND_TEST_DATABASE_URL = url.toString();
    console.error(`test: fresh PostgreSQL database ${name} for this run`);
  } else {
    env.ERRAND_TEST_DATABASE_SKIP = `could not create a test database on ${ADMIN_URL.replace(/:[^:@/]*@/, "@")} (${failed.message})`;
    console.error(`NOTICE: the PostgreSQL tests will be skipped: ${env.ERRAND_TEST_DATABASE_SKIP}`);
  }
}
// Each phase also writes TAP to a scratch file, so one summary for the whole run can be printed at the
// end (each phase's spec reporter prints its own).
const scratch = mkdtempSync(join(tmpdir(), "errand-test-"));
const totals = new Map();
let status = 0;
for (const [index, phase] of phases.entries()) {
  if (phases.length > 1) console.error(`test: phase ${index + 1} of ${phases.length}: ${phase.files.length} ${phase.name}, ${phase.concurrency} at a time`);
  const tap = join(scratch, `phase-${index}.tap`);
  const result = spawnSync(
    process.execPath,
    ["--import", "tsx", "--test", `--test-concurrency=${phase.concurrency}`, "--test-reporter=spec", "--test-reporter-destination=stdout", "--test-reporter=tap", `--test-reporter-destination=${tap}`, ...phase.files],
    { stdio: "inherit", env },
  );
  if (result.status !== 0) status = result.status ?? 1;
  for (const [key, value] of tapTotals(tap)) totals.set(key, (totals.get(key) ?? 0) + value);
}
rmSync(scratch, { recursive: true, force: true });
if (phases.length > 1) {
  console.log(`\ntest: whole run, ${phases.length} phases: ${["tests", "pass", "fail", "cancelled", "skipped", "todo"].map((key) => `${key} ${totals.get(key) ?? 0}`).join(", ")}, ${((totals.get("duration_ms") ?? 0) / 1000).toFixed(0)} s`);
}

/** The closing "# tests N" style counts of one TAP report (zero when the phase wrote none). */
function tapTotals(path) {
  const found = new Map();
  let text = "";
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return found;
  }
  for (const match of text.matchAll(/^# (tests|pass|fail|cancelled|skipped|todo|duration_ms) ([\d.]+)$/gm)) found.set(match[1], Number(match[2]));
  return found;
}

if (database !== undefined) {
  const failed = await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  if (failed !== null) console.error(`test: could not drop ${database}: ${failed.message}`);
}
process.exit(status);
