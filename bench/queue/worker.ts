// One benchmark runner process: waits for "go" from the parent, drains the queue, reports.
// Usage (by queue.ts only): worker.ts errand|bare|fused <dir> (SQLite; bare: two transactions per job; fused: one)
//                           worker.ts pg-errand <home> <url> | pg-bare <url> | pg-graphile <url> (PostgreSQL)
import { openBare, openErrand } from "./benchSupport.js";
import { openBarePg, openErrandPg } from "./postgresBench.js";

const [mode, dir, url] = process.argv.slice(2);
const MODES = ["errand", "bare", "fused", "pg-errand", "pg-bare", "pg-graphile"];
if (mode === undefined || !MODES.includes(mode) || dir === undefined)
  throw new Error("usage: worker.ts errand|bare|fused <dir> | pg-errand <home> <url> | pg-bare <url> | pg-graphile <url>");
const send = (message: unknown) => process.send?.(message);
const owner = `bench:${process.pid}`;

if (mode === "errand" || mode === "pg-errand") {
  const { service, store } = mode === "errand" ? await openErrand(dir) : await openErrandPg(dir, url ?? "");
  // The first call waits for the connection (and, on PostgreSQL, the migration check) before "go".
  await store.status();
  process.once("message", () => {
    const started = performance.now();
    void service.runQueue().then(async (report) => {
      send({ cycles: report.attempts.length, ms: performance.now() - started });
      await store.close();
      process.disconnect();
    });
  });
} else if (mode === "pg-bare") {
  const bare = await openBarePg(dir);
  process.once("message", () => {
    const started = performance.now();
    void (async () => {
      let cycles = 0;
      while (await bare.fusedCycle(owner)) cycles += 1;
      send({ cycles, ms: performance.now() - started });
      await bare.close();
      process.disconnect();
    })();
  });
} else if (mode === "pg-graphile") {
  const { runOnce, Logger } = await import("graphile-worker");
  let cycles = 0;
  const quiet = new Logger(() => () => undefined);
  const options = { connectionString: dir, concurrency: 1, noHandleSignals: true, logger: quiet, taskList: { bench: () => void (cycles += 1) } };
  process.once("message", () => {
    const started = performance.now();
    void runOnce(options).then(() => {
      send({ cycles, ms: performance.now() - started });
      process.disconnect();
    });
  });
} else {
  const bare = openBare(dir);
  process.once("message", () => {
    const started = performance.now();
    let cycles = 0;
    if (mode === "fused") while (bare.fusedCycle(owner)) cycles += 1;
    else while (bare.cycle(owner)) cycles += 1;
    send({ cycles, ms: performance.now() - started });
    bare.close();
    process.disconnect();
  });
}
send("ready");
