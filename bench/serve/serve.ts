// errand serve's worker pool against plain playwright-core, at the same concurrency, in one run:
// N tasks submitted at once over REST to a real `errand serve` (ERRAND_CONCURRENCY = c), wall time
// from the first submit to the last receipt; against N tasks run by c workers, each task in a fresh
// context of one warm Chromium, doing the same steps by hand. Both sides are warm (one task first).
// Rounds alternate errand and plain for each concurrency; medians of the rounds are compared.
// Usage: npx tsx bench/serve/serve.ts [tasks=20] [rounds=3] [concurrencies=1,2,4]
import { spawn } from "node:child_process";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import type { Browser } from "playwright-core";
import { startDemoSite } from "../../src/demo/demoSite.js";
import { demoReadTask } from "../../src/demo/demoTasks.js";
import { LOCKED_DOWN_CHROMIUM_ARGS } from "../../src/providers/local/chromiumLaunch.js";
import { findChromium } from "../../src/providers/local/findChromium.js";
import { demoReadByHand } from "../support/demoReadByHand.js";

const tasks = Number(process.argv[2] ?? 20);
const rounds = Number(process.argv[3] ?? 3);
const concurrencies = (process.argv[4] ?? "1,2,4").split(",").map(Number);
const MAIN = fileURLToPath(new URL("../../src/interfaces/cli/main.ts", import.meta.url));
const PASSWORD = "a long bench owner password";
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

const site = await startDemoSite();
const scratch = mkdtempSync(join(tmpdir(), "errand-bench-serve-"));

function env(home: string, concurrency: number): NodeJS.ProcessEnv {
  return { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "", ERRAND_HOME: home, ERRAND_OWNER_PASSWORD: PASSWORD, ERRAND_ALLOW_PRIVATE: site.hostPort, ERRAND_CONCURRENCY: String(concurrency) };
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
    const child = spawn(process.execPath, ["--import", "tsx", MAIN, "serve", "--port", "0"], { env: processEnv, stdio: ["pipe", "pipe", "pipe"] });
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

/** Submits `count` tasks at once and waits for every receipt; wall time from first submit to last receipt (ms). */
async function errandBatch(served: Served, token: string, count: number): Promise<number> {
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const ids = Array.from({ length: count }, () => randomUUID());
  const started = performance.now();
  await Promise.all(
    ids.map(async (operationId) => {
      const response = await fetch(`${served.origin}/v1/operations`, { method: "POST", headers, body: JSON.stringify({ ...(demoReadTask(site.origin) as object), operationId }) });
      if (response.status !== 201) throw new Error(`submit ${response.status}: ${await response.text()}`);
    }),
  );
  await Promise.all(
    ids.map(async (operationId) => {
      const response = await fetch(`${served.origin}/v1/operations/${operationId}/collect`, { method: "POST", headers, body: JSON.stringify({ waitSeconds: 120 }) });
      const body = (await response.json()) as { receipt?: { status: string } };
      if (body.receipt?.status !== "PASS") throw new Error(`receipt ${JSON.stringify(body).slice(0, 300)}`);
    }),
  );
  return performance.now() - started;
}

/** `count` tasks by `concurrency` workers on one browser, each task in a fresh context (ms). */
async function plainBatch(browser: Browser, count: number, concurrency: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next += 1;
        const context = await browser.newContext({ serviceWorkers: "block", acceptDownloads: false });
        try {
          await demoReadByHand(await context.newPage(), site.origin);
        } finally {
          await context.close();
        }
      }
    }),
  );
  return performance.now() - started;
}

const executablePath = findChromium(process.env);
if (executablePath === null) throw new Error("no Chromium");
const browser = await chromium.launch({ executablePath, headless: true, args: [...LOCKED_DOWN_CHROMIUM_ARGS], chromiumSandbox: process.getuid?.() !== 0 });
await plainBatch(browser, 1, 1);

const rows: string[] = [];
for (const concurrency of concurrencies) {
  const home = join(scratch, `c${concurrency}`);
  const processEnv = env(home, concurrency);
  const token = (await runCli(["token", "create", "--name", "bench"], processEnv)).trim();
  const served = await serve(processEnv);
  try {
    await errandBatch(served, token, Math.max(1, concurrency)); // warm: the browser starts
    const errandTimes: number[] = [];
    const plainTimes: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      errandTimes.push(await errandBatch(served, token, tasks));
      plainTimes.push(await plainBatch(browser, tasks, concurrency));
    }
    const e = median(errandTimes);
    const p = median(plainTimes);
    const row = `| ${concurrency} | ${e.toFixed(0)} ms | ${p.toFixed(0)} ms | ${(e / p).toFixed(2)} | ${errandTimes.map((t) => t.toFixed(0)).join(", ")} / ${plainTimes.map((t) => t.toFixed(0)).join(", ")} |`;
    console.log(row);
    rows.push(row);
  } finally {
    served.child.kill("SIGTERM");
    await new Promise((resolve) => served.child.once("close", resolve));
  }
}
await browser.close();
await site.close();
rmSync(scratch, { recursive: true, force: true });
console.log(`\n${tasks} tasks at once, ${rounds} rounds, medians (errand serve over REST vs plain playwright-core, same concurrency):`);
console.log("| concurrency | errand serve | plain | ratio | rounds (errand / plain) |\n| --- | --- | --- | --- | --- |");
for (const row of rows) console.log(row);
