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
import { spawn } from "node:child_process";
import { Buffer } from "node:buffer";
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
const SLOW =
  /startFixtureSites|createLocalProvider|startBrowserlessServer|spawnRunner\(|spawn\(|execFile\(|runErrand\(|startServe\(|launchChromium|chromium\.launch\(|@slow\b/;

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
// Node 20 runs one test file at a time on a 2-core machine (its default is cores - 1). Chromium-heavy
// files running side by side turn timing margins into flakes, so the browser and process files run
// one at a time; but they spend much of their time waiting on browsers, sites and child processes,
// so the light files (no browser, no child process) run beside them in a second lane, also one at a
// time, their report held and printed at the end so the two do not interleave. A selection with only
// light files (--fast, check:fast) runs them two (or more) at a time in one lane.
const sharedCores = Math.max(2, availableParallelism());
const light = files.filter((f) => !slowFiles.has(f));
const heavy = files.filter((f) => slowFiles.has(f));
const lanes =
  heavy.length === 0
    ? [{ name: "light files", files: light, concurrency: sharedCores, held: false }]
    : [
        { name: "browser and process files", files: heavy, concurrency: 1, held: false },
        { name: "light files", files: light, concurrency: 1, held: true },
      ].filter((lane) => lane.files.length > 0);

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
// Each lane also writes TAP to a scratch file, so one summary for the whole run can be printed at the
// end (each lane's spec reporter prints its own).
const scratch = mkdtempSync(join(tmpdir(), "errand-test-"));
const totals = new Map();
const started = Date.now();
if (lanes.length > 1)
  console.error(
    `test: ${lanes.map((lane) => `${lane.files.length} ${lane.name} one at a time`).join(", beside them ")} (the second lane's report comes at the end)`,
  );
const results = await Promise.all(lanes.map((lane, index) => runLane(lane, join(scratch, `lane-${index}.tap`))));
let status = 0;
for (const [index, result] of results.entries()) {
  if (result.held !== null) {
    console.log(`\ntest: the ${lanes[index].name}, run beside the others:`);
    process.stdout.write(result.held);
  }
  if (result.code !== 0) status = result.code ?? 1;
  for (const [key, value] of tapTotals(result.tap)) totals.set(key, (totals.get(key) ?? 0) + value);
}
rmSync(scratch, { recursive: true, force: true });
if (lanes.length > 1) {
  console.log(
    `\ntest: whole run, ${lanes.length} lanes side by side: ${["tests", "pass", "fail", "cancelled", "skipped", "todo"].map((key) => `${key} ${totals.get(key) ?? 0}`).join(", ")}, ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
}

/** Runs one lane's files in one `node --test`; a held lane's report is kept and returned instead of printed. */
function runLane(lane, tap) {
  const args = [
    "--import",
    "tsx",
    "--test",
    `--test-concurrency=${lane.concurrency}`,
    "--test-reporter=spec",
    "--test-reporter-destination=stdout",
    "--test-reporter=tap",
    `--test-reporter-destination=${tap}`,
    ...lane.files,
  ];
  const child = spawn(process.execPath, args, { stdio: lane.held ? ["ignore", "pipe", "pipe"] : "inherit", env });
  const chunks = [];
  if (lane.held) {
    child.stdout.on("data", (chunk) => chunks.push(chunk));
    child.stderr.on("data", (chunk) => chunks.push(chunk));
  }
  return new Promise((resolve) => {
    child.on("close", (code) => resolve({ code, tap, held: lane.held ? Buffer.concat(chunks).toString("utf8") : null }));
  });
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
  for (const match of text.matchAll(/^# (tests|pass|fail|cancelled|skipped|todo) ([\d.]+)$/gm)) found.set(match[1], Number(match[2]));
  return found;
}

if (database !== undefined) {
  const failed = await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  if (failed !== null) console.error(`test: could not drop ${database}: ${failed.message}`);
}
process.exit(status);
