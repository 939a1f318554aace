// errand serve's worker pool against plain playwright-core, at the same number of tasks in flight,
// in one run. For each concurrency c: a real `errand serve` (ERRAND_CONCURRENCY = c) gets the demo
// read task over REST from c clients, each submitting its next task as soon as its last receipt
// came back (collect with a wait), so c tasks are always in flight; against c workers on one warm
// Chromium doing the same steps by hand, each task in a fresh context. Per task: latency from
// submit to receipt (plain: from opening the context to closing it); per batch: throughput. Both
// sides warm (c tasks first). While errand's batch runs, serve's own event loop is watched
// (bench/serve/loopDelay.ts, preloaded into the serve process): how late its timers ran, so a
// synchronous stall (a store commit, a log write) shows as delay even when the wall time hides it.
// Usage: npx tsx bench/serve/serve.ts [tasks=24] [concurrencies=1,2,4,8]
import { spawn } from "node:child_process";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import type { Browser } from "playwright-core";
import { startDemoSite } from "../../src/demo/demoSite.js";
import { demoReadTask } from "../../src/demo/demoTasks.js";
import { LOCKED_DOWN_CHROMIUM_ARGS } from "../../src/providers/local/chromiumLaunch.js";
import { findChromium } from "../../src/providers/local/findChromium.js";
import { demoReadByHand } from "../support/demoReadByHand.js";

const tasks = Number(process.argv[2] ?? 24);
const concurrencies = (process.argv[3] ?? "1,2,4,8").split(",").map(Number);
const MAIN = fileURLToPath(new URL("../../src/interfaces/cli/main.ts", import.meta.url));
const LOOP_DELAY = pathToFileURL(fileURLToPath(new URL("./loopDelay.ts", import.meta.url))).href;
const PASSWORD = "a long bench owner password";

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? Number.NaN;
}

const site = await startDemoSite();
const scratch = mkdtempSync(join(tmpdir(), "errand-bench-serve-"));

function env(home: string, concurrency: number, loopFile: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env["PATH"] ?? "",
    HOME: process.env["HOME"] ?? "",
    ERRAND_HOME: home,
    ERRAND_OWNER_PASSWORD: PASSWORD,
    ERRAND_ALLOW_PRIVATE: site.hostPort,
    ERRAND_CONCURRENCY: String(concurrency),
    ERRAND_BENCH_LOOP_FILE: loopFile,
  };
}

function runCli(args: string[], processEnv: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", MAIN, ...args], { env: processEnv, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`errand ${args.join(" ")} exited ${code}: ${err}`))));
  });
}

interface Served {
  child: ChildProcessWithoutNullStreams;
  origin: string;
}

function serve(processEnv: NodeJS.ProcessEnv): Promise<Served> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "--import", LOOP_DELAY, MAIN, "serve", "--port", "0"], {
      env: processEnv,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let out = "";
    child.stderr.resume();
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match !== null && out.includes("Next:")) resolve({ child, origin: match[1] ?? "" });
    });
    child.on("close", (code) => reject(new Error(`serve exited ${code}`)));
  });
}

interface LoopDelay {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  stalledMs: number;
  samples: number;
}

/** Asks the serve process for its event-loop delay since the last ask (and starts a new count). */
async function takeLoopDelay(served: Served, file: string): Promise<LoopDelay> {
  rmSync(file, { force: true });
  served.child.kill("SIGUSR2");
  for (let waited = 0; !existsSync(file); waited += 20) {
    if (waited > 10_000) throw new Error("serve did not report its event-loop delay");
    await sleep(20);
  }
  await sleep(20);
  return JSON.parse(readFileSync(file, "utf8")) as LoopDelay;
}

interface Batch {
  latencies: number[];
  wallMs: number;
}

/** `count` tasks, `inFlight` at a time: each client submits, waits for the receipt, then submits its next. */
async function errandBatch(served: Served, token: string, count: number, inFlight: number): Promise<Batch> {
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < count) {
        next += 1;
        const operationId = randomUUID();
        const submitted = performance.now();
        const response = await fetch(`${served.origin}/v1/operations`, {
          method: "POST",
          headers,
          body: JSON.stringify({ ...(demoReadTask(site.origin) as object), operationId }),
        });
        if (response.status !== 201) throw new Error(`submit ${response.status}: ${await response.text()}`);
        const collected = await fetch(`${served.origin}/v1/operations/${operationId}/collect`, {
          method: "POST",
          headers,
          body: JSON.stringify({ waitSeconds: 120 }),
        });
        const body = (await collected.json()) as { receipt?: { status: string } };
        if (body.receipt?.status !== "PASS") throw new Error(`receipt ${JSON.stringify(body).slice(0, 300)}`);
        latencies.push(performance.now() - submitted);
      }
    }),
  );
  return { latencies, wallMs: performance.now() - started };
}

/** `count` tasks by `inFlight` workers on one browser, each task in a fresh context. */
async function plainBatch(browser: Browser, count: number, inFlight: number): Promise<Batch> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < count) {
        next += 1;
        const begun = performance.now();
        const context = await browser.newContext({ serviceWorkers: "block", acceptDownloads: false });
        try {
          await demoReadByHand(await context.newPage(), site.origin);
        } finally {
          await context.close();
        }
        latencies.push(performance.now() - begun);
      }
    }),
  );
  return { latencies, wallMs: performance.now() - started };
}

const executablePath = findChromium(process.env);
if (executablePath === null) throw new Error("no Chromium");
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(", ");
const startLoad = load();
const browser = await chromium.launch({ executablePath, headless: true, args: [...LOCKED_DOWN_CHROMIUM_ARGS], chromiumSandbox: process.getuid?.() !== 0 });
await plainBatch(browser, 1, 1);

const ms = (x: number) => `${x.toFixed(0)} ms`;
const perMin = (b: Batch) => ((b.latencies.length / b.wallMs) * 60_000).toFixed(1);
const rows: string[] = [];
const loopRows: string[] = [];
for (const concurrency of concurrencies) {
  const home = join(scratch, `c${concurrency}`);
  const loopFile = join(scratch, `loop-${concurrency}.json`);
  const processEnv = env(home, concurrency, loopFile);
  const token = (await runCli(["token", "create", "--name", "bench"], processEnv)).trim();
  const served = await serve(processEnv);
  try {
    await errandBatch(served, token, concurrency, concurrency); // warm: the browser starts
    await takeLoopDelay(served, loopFile);
    const errand = await errandBatch(served, token, tasks, concurrency);
    const delay = await takeLoopDelay(served, loopFile);
    await plainBatch(browser, concurrency, concurrency);
    const plain = await plainBatch(browser, tasks, concurrency);
    const [e50, e90, p50, p90] = [
      percentile(errand.latencies, 50),
      percentile(errand.latencies, 90),
      percentile(plain.latencies, 50),
      percentile(plain.latencies, 90),
    ];
    const row = `| ${concurrency} | ${ms(e50)} | ${ms(e90)} | ${perMin(errand)} | ${ms(p50)} | ${ms(p90)} | ${perMin(plain)} | ${(e50 / p50).toFixed(2)} | ${(e90 / p90).toFixed(2)} |`;
    const loopRow = `| ${concurrency} | ${delay.p50} ms | ${delay.p90} ms | ${delay.p99} ms | ${delay.max} ms | ${delay.stalledMs} ms | ${(delay.stalledMs / tasks).toFixed(1)} ms |`;
    console.log(row);
    console.log(loopRow);
    rows.push(row);
    loopRows.push(loopRow);
  } finally {
    served.child.kill("SIGTERM");
    await new Promise((resolve) => served.child.once("close", resolve));
  }
}
await browser.close();
await site.close();
rmSync(scratch, { recursive: true, force: true });
console.log(`\n${tasks} tasks per concurrency, that many in flight at once; load average at start ${startLoad}, at end ${load()}`);
console.log(
  "| in flight | errand p50 | errand p90 | errand tasks/min | plain p50 | plain p90 | plain tasks/min | ratio p50 | ratio p90 |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
);
for (const row of rows) console.log(row);
console.log("\nerrand serve's event loop during its batch (delay past the 5 ms sampling interval):");
console.log("| in flight | p50 | p90 | p99 | max | stalled in all | stalled per task |\n| --- | --- | --- | --- | --- | --- | --- |");
for (const row of loopRows) console.log(row);
