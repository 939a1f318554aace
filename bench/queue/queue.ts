// Queue benchmark: errand's store path against a bare better-sqlite3 loop with the same claim
// pattern and durability, in the same run. Measures submits/s, claim+complete cycles/s with 1 and
// 4 runner processes, and `journal verify` events/s. No browser: the executor returns at once.
// Usage: npx tsx bench/queue/queue.ts [operations=1000] [runs=3]
import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { canonicalJson } from "../../src/task/canonicalJson.js";
import { benchTask, openBare, openErrand } from "./benchSupport.js";

const operations = Number(process.argv[2] ?? 1000);
const runs = Number(process.argv[3] ?? 3);
const WORKER = fileURLToPath(new URL("./worker.ts", import.meta.url));

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const rate = (count: number, ms: number) => (count * 1000) / ms;

async function submitErrand(dir: string): Promise<number> {
  const { service, store } = openErrand(dir);
  const tasks = Array.from({ length: operations }, () => benchTask());
  const started = performance.now();
  for (const task of tasks) {
    const result = await service.submit(task);
    if (!result.ok) throw new Error(result.message);
  }
  const ms = performance.now() - started;
  await store.close();
  return rate(operations, ms);
}

function submitBare(dir: string): number {
  const bare = openBare(dir);
  const tasks = Array.from({ length: operations }, () => benchTask());
  const started = performance.now();
  for (const task of tasks) bare.submit(String(task["operationId"]), canonicalJson(task));
  const ms = performance.now() - started;
  bare.close();
  return rate(operations, ms);
}

/** Starts `processes` workers, lets them open their databases, then times the drain from "go" to the last report. */
async function drain(mode: "errand" | "bare", dir: string, processes: number): Promise<number> {
  const workers = Array.from({ length: processes }, () => fork(WORKER, [mode, dir], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] }));
  await Promise.all(workers.map((w) => new Promise<void>((resolve) => w.once("message", () => resolve()))));
  const started = performance.now();
  const reports = await Promise.all(
    workers.map((w) => {
      const report = new Promise<{ cycles: number }>((resolve) => w.once("message", (m) => resolve(m as { cycles: number })));
      w.send("go");
      return report;
    }),
  );
  const ms = performance.now() - started;
  const cycles = reports.reduce((sum, r) => sum + r.cycles, 0);
  if (cycles !== operations) throw new Error(`${mode}: ${cycles} cycles for ${operations} operations`);
  await Promise.all(workers.map((w) => new Promise((resolve) => (w.exitCode === null ? w.once("exit", resolve) : resolve(null)))));
  return rate(cycles, ms);
}

async function verifyRate(dir: string): Promise<{ rate: number; events: number }> {
  const { service, store } = openErrand(dir);
  const started = performance.now();
  const verdict = await service.verifyJournal();
  const ms = performance.now() - started;
  await store.close();
  if (!verdict.ok) throw new Error(`journal does not verify: ${verdict.message}`);
  return { rate: rate(verdict.events, ms), events: verdict.events };
}

type Row = { submit: number; cycle1: number; cycle4: number };
const errandRuns: Row[] = [];
const bareRuns: Row[] = [];
const verifyRuns: number[] = [];
let verifiedEvents = 0;

for (let run = 0; run < runs; run += 1) {
  const row = { errand: {} as Row, bare: {} as Row };
  for (const processes of [1, 4] as const) {
    for (const mode of run % 2 === 0 ? (["errand", "bare"] as const) : (["bare", "errand"] as const)) {
      const dir = mkdtempSync(join(tmpdir(), `errand-bench-${mode}-`));
      try {
        const submitted = mode === "errand" ? await submitErrand(dir) : submitBare(dir);
        const cycles = await drain(mode, dir, processes);
        if (processes === 1) row[mode].submit = submitted;
        row[mode][processes === 1 ? "cycle1" : "cycle4"] = cycles;
        if (mode === "errand" && processes === 4) {
          const verified = await verifyRate(dir);
          verifyRuns.push(verified.rate);
          verifiedEvents = verified.events;
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }
  errandRuns.push(row.errand);
  bareRuns.push(row.bare);
  process.stderr.write(`run ${run + 1}/${runs}: errand ${JSON.stringify(row.errand)} bare ${JSON.stringify(row.bare)}\n`);
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const lines = [
  `operations per run: ${operations}, runs: ${runs} (medians; ratio = bare rate / errand rate, 1.0 = as fast as the bare loop)`,
  "",
  "| measure | errand | bare better-sqlite3 | ratio |",
  "| --- | --- | --- | --- |",
];
for (const [label, key] of [["submits/s (1 process)", "submit"], ["claim+complete cycles/s, 1 runner process", "cycle1"], ["claim+complete cycles/s, 4 runner processes", "cycle4"]] as const) {
  const e = median(errandRuns.map((r) => r[key]));
  const b = median(bareRuns.map((r) => r[key]));
  lines.push(`| ${label} | ${fmt(e)} | ${fmt(b)} | ${(b / e).toFixed(2)} |`);
}
lines.push(`| journal verify events/s (${verifiedEvents} events) | ${fmt(median(verifyRuns))} | - | - |`);
process.stdout.write(`${lines.join("\n")}\n`);
