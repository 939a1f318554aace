// Queue benchmark: errand's store path against a bare loop with the same claim pattern and
// durability, in the same run, on SQLite (the store's binding, src/store/sqlite/sqliteBinding.ts) and on PostgreSQL (FOR UPDATE SKIP LOCKED;
// and graphile-worker on the same server). Measures submits/s, claim+complete cycles/s with 1 and
// 4 runner processes, and `journal verify` events/s. No browser: the executor returns at once.
//
// The disk of a shared machine changes speed from second to second, so the 1-process measures
// interleave errand and the baseline in chunks of 50 operations in one process and compare the
// summed times; the 4-process measure alternates whole drains and reports the median of the
// per-run ratios. On PostgreSQL every measure is a whole drain by forked runner processes (1 or 4)
// on its own fresh database, the three systems alternating; ratios are medians of per-run ratios.
// Usage: npx tsx bench/queue/queue.ts [operations=2000] [runs=3] [stores=sqlite,postgres]
import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { canonicalJson } from "../../src/task/canonicalJson.js";
import { benchTask, openBare, openErrand } from "./benchSupport.js";
import { freshBenchDatabase, openBarePg, openErrandPg, submitGraphile } from "./postgresBench.js";

const operations = Number(process.argv[2] ?? 2000);
const runs = Number(process.argv[3] ?? 3);
const stores = new Set((process.argv[4] ?? "sqlite,postgres").split(","));
const CHUNK = 50;
const WORKER = fileURLToPath(new URL("./worker.ts", import.meta.url));

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const rate = (count: number, ms: number) => (count * 1000) / ms;
const scratch = (name: string) => mkdtempSync(join(tmpdir(), `errand-bench-${name}-`));

/** Submits and drains `operations` on errand and on both bare loops, chunk by chunk, in one process. */
async function interleaved(): Promise<{ submit: [number, number]; cycle: [number, number, number]; cpuPerCycle: [number, number] }> {
  const dirs = { errand: scratch("errand"), bare: scratch("bare"), fused: scratch("fused") };
  const errand = await openErrand(dirs.errand);
  const bare = openBare(dirs.bare);
  const fused = openBare(dirs.fused);
  const ms = { errandSubmit: 0, bareSubmit: 0, errand: 0, bare: 0, fused: 0 };
  // This process's CPU time (user + system) spent in each side's cycles: what the work costs apart
  // from waiting for the disk.
  const cpu = { errand: 0, fused: 0 };
  const cpuSince = (start: NodeJS.CpuUsage) => {
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1000;
  };
  try {
    for (let done = 0; done < operations; done += CHUNK) {
      const tasks = Array.from({ length: Math.min(CHUNK, operations - done) }, () => benchTask());
      let t = performance.now();
      for (const task of tasks) {
        const result = await errand.service.submit(task);
        if (!result.ok) throw new Error(result.message);
      }
      ms.errandSubmit += performance.now() - t;
      t = performance.now();
      for (const task of tasks) bare.submit(String(task["operationId"]), canonicalJson(task));
      ms.bareSubmit += performance.now() - t;
      for (const task of tasks) fused.submit(String(task["operationId"]), canonicalJson(task));
    }
    const cycles = { errand: 0, bare: 0, fused: 0 };
    while (cycles.errand < operations || cycles.bare < operations || cycles.fused < operations) {
      let t = performance.now();
      let c = process.cpuUsage();
      cycles.errand += (await errand.service.runQueue({ max: CHUNK })).attempts.length;
      ms.errand += performance.now() - t;
      cpu.errand += cpuSince(c);
      t = performance.now();
      for (let i = 0; i < CHUNK && bare.cycle("bare"); i += 1) cycles.bare += 1;
      ms.bare += performance.now() - t;
      t = performance.now();
      c = process.cpuUsage();
      for (let i = 0; i < CHUNK && fused.fusedCycle("fused"); i += 1) cycles.fused += 1;
      ms.fused += performance.now() - t;
      cpu.fused += cpuSince(c);
    }
    if (cycles.errand !== operations) throw new Error(`errand ran ${cycles.errand} of ${operations}`);
    return {
      submit: [rate(operations, ms.errandSubmit), rate(operations, ms.bareSubmit)],
      cycle: [rate(operations, ms.errand), rate(operations, ms.fused), rate(operations, ms.bare)],
      cpuPerCycle: [cpu.errand / operations, cpu.fused / operations],
    };
  } finally {
    await errand.store.close();
    bare.close();
    fused.close();
    for (const dir of Object.values(dirs)) rmSync(dir, { recursive: true, force: true });
  }
}

/** Starts `processes` workers, lets them open their databases, then times the drain from "go" to the last report. */
/**
 * Forks `processes` workers with `args`, waits until every one is ready, says "go" to all at once and
 * times them until each reports its cycles; the cycles must add up to the queued operations. Waits for
 * every worker to exit before returning cycles per second, so the next drain starts on a quiet machine.
 */
async function timeWorkers(mode: string, args: string[], processes: number): Promise<number> {
  const workers = Array.from({ length: processes }, () =>
    fork(WORKER, args, { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] }),
  );
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

async function drain(mode: "errand" | "bare" | "fused", processes: number): Promise<number> {
  const dir = scratch(mode);
  try {
    if (mode === "errand") {
      const { service, store } = await openErrand(dir);
      for (let i = 0; i < operations; i += 1) await service.submit(benchTask());
      await store.close();
    } else {
      const bare = openBare(dir);
      for (let i = 0; i < operations; i += 1) {
        const task = benchTask();
        bare.submit(String(task["operationId"]), canonicalJson(task));
      }
      bare.close();
    }
    return await timeWorkers(mode, [mode, dir], processes);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

type PgMode = "pg-errand" | "pg-bare" | "pg-graphile";

/** Queues `operations` jobs for `mode` on a fresh database, then times `processes` forked runners draining it. */
async function drainPg(mode: PgMode, processes: number): Promise<number> {
  const db = await freshBenchDatabase();
  const home = scratch("pg-home");
  try {
    if (mode === "pg-errand") {
      const { service, store } = await openErrandPg(home, db.url);
      for (let i = 0; i < operations; i += 1) {
        const result = await service.submit(benchTask());
        if (!result.ok) throw new Error(result.message);
      }
      await store.close();
    } else if (mode === "pg-bare") {
      const bare = await openBarePg(db.url);
      for (let i = 0; i < operations; i += 1) {
        const task = benchTask();
        await bare.submit(String(task["operationId"]), canonicalJson(task));
      }
      await bare.close();
    } else {
      await submitGraphile(db.url, operations);
    }
    const args = mode === "pg-errand" ? [mode, home, db.url] : [mode, db.url];
    return await timeWorkers(mode, args, processes);
  } finally {
    await db.drop();
    rmSync(home, { recursive: true, force: true });
  }
}

async function verifyRate(): Promise<{ rate: number; events: number }> {
  const dir = scratch("verify");
  try {
    const { service, store } = await openErrand(dir);
    for (let i = 0; i < operations; i += 1) await service.submit(benchTask());
    await service.runQueue();
    const started = performance.now();
    const verdict = await service.verifyJournal();
    const ms = performance.now() - started;
    await store.close();
    if (!verdict.ok) throw new Error(`journal does not verify: ${verdict.message}`);
    return { rate: rate(verdict.events, ms), events: verdict.events };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const one: Awaited<ReturnType<typeof interleaved>>[] = [];
const four: { errand: number; fused: number; bare: number }[] = [];
const verify: number[] = [];
let events = 0;
const pg: Record<1 | 4, { errand: number; bare: number; graphile: number }[]> = { 1: [], 4: [] };
for (let run = 0; run < runs && stores.has("postgres"); run += 1) {
  for (const processes of [1, 4] as const) {
    const order: PgMode[] = run % 2 === 0 ? ["pg-errand", "pg-bare", "pg-graphile"] : ["pg-graphile", "pg-bare", "pg-errand"];
    const row = { errand: 0, bare: 0, graphile: 0 };
    for (const mode of order) row[mode === "pg-errand" ? "errand" : mode === "pg-bare" ? "bare" : "graphile"] = await drainPg(mode, processes);
    pg[processes].push(row);
    process.stderr.write(`postgres run ${run + 1}/${runs}, ${processes} process(es): ${JSON.stringify(row)}\n`);
  }
}
for (let run = 0; run < runs && stores.has("sqlite"); run += 1) {
  one.push(await interleaved());
  const order = run % 2 === 0 ? (["errand", "fused", "bare"] as const) : (["bare", "fused", "errand"] as const);
  const row = { errand: 0, fused: 0, bare: 0 };
  for (const mode of order) row[mode] = await drain(mode, 4);
  four.push(row);
  const v = await verifyRate();
  verify.push(v.rate);
  events = v.events;
  process.stderr.write(`run ${run + 1}/${runs}: 1 process ${JSON.stringify(one[run])}; 4 processes ${JSON.stringify(row)}; verify ${Math.round(v.rate)}/s\n`);
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const ratio = (xs: number[]) => median(xs).toFixed(2);
const lines: string[] = [];
if (stores.has("sqlite"))
  lines.push(
    `${operations} operations per measure, ${runs} runs, medians. Ratio = baseline rate / errand rate (1.00 = as fast as the bare loop, 2.00 = half as fast).`,
    "",
    "| measure | errand | bare loop, same pattern (fused) | ratio | bare loop, 2 transactions per job | ratio |",
    "| --- | --- | --- | --- | --- | --- |",
    `| submits/s, 1 process | ${fmt(median(one.map((r) => r.submit[0])))} | ${fmt(median(one.map((r) => r.submit[1])))} | ${ratio(one.map((r) => r.submit[1] / r.submit[0]))} | - | - |`,
    `| claim+complete cycles/s, 1 runner process | ${fmt(median(one.map((r) => r.cycle[0])))} | ${fmt(median(one.map((r) => r.cycle[1])))} | ${ratio(one.map((r) => r.cycle[1] / r.cycle[0]))} | ${fmt(median(one.map((r) => r.cycle[2])))} | ${ratio(one.map((r) => r.cycle[2] / r.cycle[0]))} |`,
    `| claim+complete cycles/s, 4 runner processes | ${fmt(median(four.map((r) => r.errand)))} | ${fmt(median(four.map((r) => r.fused)))} | ${ratio(four.map((r) => r.fused / r.errand))} | ${fmt(median(four.map((r) => r.bare)))} | ${ratio(four.map((r) => r.bare / r.errand))} |`,
    `| CPU ms per cycle, 1 runner process (wall ms per cycle: errand ${(1000 / median(one.map((r) => r.cycle[0]))).toFixed(3)}, fused ${(1000 / median(one.map((r) => r.cycle[1]))).toFixed(3)}) | ${median(one.map((r) => r.cpuPerCycle[0])).toFixed(3)} | ${median(one.map((r) => r.cpuPerCycle[1])).toFixed(3)} | ${ratio(one.map((r) => r.cpuPerCycle[0] / r.cpuPerCycle[1]))} (errand / bare) | - | - |`,
    `| journal verify events/s (${events} events) | ${fmt(median(verify))} | - | - | - | - |`,
  );
if (stores.has("postgres")) {
  const pgRow = (processes: 1 | 4) => {
    const rows = pg[processes];
    return `| claim+complete cycles/s, ${processes} runner process${processes === 1 ? "" : "es"} | ${fmt(median(rows.map((r) => r.errand)))} | ${fmt(median(rows.map((r) => r.bare)))} | ${ratio(rows.map((r) => r.bare / r.errand))} | ${fmt(median(rows.map((r) => r.graphile)))} | ${ratio(rows.map((r) => r.graphile / r.errand))} |`;
  };
  lines.push(
    "",
    `PostgreSQL: ${operations} operations per drain, ${runs} runs, medians; every drain on a fresh database.`,
    "",
    "| measure | errand | bare SKIP LOCKED loop (fused) | ratio | graphile-worker 0.18.0 | ratio |",
    "| --- | --- | --- | --- | --- | --- |",
    pgRow(1),
    pgRow(4),
  );
}
process.stdout.write(`${lines.join("\n")}\n`);
