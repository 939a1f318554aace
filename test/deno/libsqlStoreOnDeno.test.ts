// The libSQL store runs on Deno as it does on Node: Deno (the npm registry's `deno` package) runs the
// libSQL store's own tests (the Store conformance suite and the access, secret and site stores) on a
// local file: database through @libsql/client, with no network permission at all (--deny-net) and no
// module fetched (--cached-only); then the same tests again with every store on the Val Town
// std/sqlite adapter over its stand-in (test/store/libsqlThroughValTown.test.ts), in a deno process
// of its own. What a Deno host (a Deno server, Val Town) needs of the store is then shown by the same
// tests, not by a second copy of them.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, describe, test } from "node:test";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const LIBSQL_TESTS = [
  "test/store/libsqlConformance.test.ts",
  ...readdirSync(join(ROOT, "test/store/libsql"))
    .filter((f) => f.endsWith(".test.ts"))
    .map((f) => `test/store/libsql/${f}`),
];

/** The deno launcher of the npm package (it finds the platform's binary, also when npm ran no install script). */
const DENO_LAUNCHER = createRequire(import.meta.url).resolve("deno/bin.cjs");

/** `deno test` as the store's tests need it. */
const DENO_TEST_FLAGS = [
  // What the store needs: its database file and temporary folders, the environment, the native libsql binding (ffi) and os facts; never the network.
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-ffi",
  "--allow-sys",
  "--deny-net",
  // errand is type-checked by tsc; modules come from node_modules only, never fetched.
  "--no-check",
  "--cached-only",
  "--node-modules-dir=manual",
  // errand's sources import "./x.js" for ./x.ts, as Node's TypeScript resolution does.
  "--sloppy-imports",
];

const denoDir = mkdtempSync(join(tmpdir(), "errand-deno-dir-"));
after(() => rmSync(denoDir, { recursive: true, force: true }));

function deno(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [DENO_LAUNCHER, ...args], {
      cwd: ROOT,
      // A Deno cache of its own, no update check, no colours in what is asserted on.
      env: { PATH: process.env["PATH"] ?? "", HOME: denoDir, DENO_DIR: denoDir, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

describe("the libSQL store on Deno", { timeout: 180_000 }, () => {
  test("deno test runs the libSQL store's tests on a file: database with no network permission, and every one passes", async () => {
    const version = await deno(["--version"]);
    assert.equal(version.code, 0, version.output);
    assert.match(version.output, /^deno \d+\.\d+\.\d+/);
    const run = await deno(["test", ...DENO_TEST_FLAGS, ...LIBSQL_TESTS]);
    assert.equal(run.code, 0, run.output.slice(-4000));
    const summary = /ok \| (\d+) passed \((\d+) steps\) \| 0 failed/.exec(run.output);
    assert.ok(summary !== null, `no passing summary in:\n${run.output.slice(-2000)}`);
    assert.ok(Number(summary[2]) >= 18, `the conformance suite's 18 steps ran: ${summary[0]}`);
  });

  test("deno test runs the same tests with every store on the Val Town std/sqlite adapter over its stand-in, and every one passes", async () => {
    const run = await deno(["test", ...DENO_TEST_FLAGS, "test/store/libsqlThroughValTown.test.ts"]);
    assert.equal(run.code, 0, run.output.slice(-4000));
    assert.match(run.output, /libsql through Val Town: the tests above opened their stores through the std\/sqlite adapter \.\.\. ok/);
    const summary = /ok \| (\d+) passed \((\d+) steps\) \| 0 failed/.exec(run.output);
    assert.ok(summary !== null, `no passing summary in:\n${run.output.slice(-2000)}`);
    assert.ok(Number(summary[2]) >= 18, `the conformance suite's 18 steps ran: ${summary[0]}`);
  });
});
