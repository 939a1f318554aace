// Runs every *.test.ts under test/ with Node's built-in test runner (TypeScript through tsx).
// Node 20's --test does not expand globs itself, so the files are listed here.
// Usage: node scripts/test.mjs [--fast] [substring filter ...]
// When a selected file uses PostgreSQL (test/fixtures/testPostgres.ts), a fresh database
// errand_test_<time>_<pid> is created on ERRAND_TEST_POSTGRES_URL's server (default: the local one,
// postgres://postgres@127.0.0.1:5432/postgres), passed to the tests as ERRAND_TEST_DATABASE_URL and
// dropped at the end. No server: those tests skip with a notice saying why (ERRAND_TEST_DATABASE_SKIP).
// --fast leaves out the files that start Chromium or child processes (see SLOW below): the inner
// loop's set of unit, SQLite and in-process tests (`npm run check:fast`).
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { URL } from "node:url";
import pg from "pg";
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

/**
 * A test file that uses one of these starts a browser or a child process, so it is not "fast"
 * (runErrand/startServe: test/support/errandProcess.ts spawns `errand` for the file). A file that
 * starts Chromium in a way no name here shows (the CLI run in process) says so with a "@slow" line.
 */
const SLOW = /startFixtureSites|createLocalProvider|startBrowserlessServer|spawnRunner\(|spawn\(|execFile\(|runErrand\(|startServe\(|launchChromium|chromium\.launch\(|@slow\b/;

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
const result = spawnSync(process.execPath, ["--import", "tsx", "--test", ...concurrency, "--test-reporter=spec", ...files], {
  stdio: "inherit",
  env,
});
if (database !== undefined) {
  const failed = await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  if (failed !== null) console.error(`test: could not drop ${database}: ${failed.message}`);
}
process.exit(result.status ?? 1);
