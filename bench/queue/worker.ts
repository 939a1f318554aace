// One benchmark runner process: waits for "go" from the parent, drains the queue, reports.
// Usage (by queue.ts only): worker.ts errand|bare|fused <dir> (bare: two transactions per job; fused: one)
import { openBare, openErrand } from "./benchSupport.js";

const [mode, dir] = process.argv.slice(2);
if ((mode !== "errand" && mode !== "bare" && mode !== "fused") || dir === undefined) throw new Error("usage: worker.ts errand|bare|fused <dir>");
const send = (message: unknown) => process.send?.(message);

if (mode === "errand") {
  const { service, store } = openErrand(dir);
  process.once("message", () => {
    const started = performance.now();
    void service.runQueue().then(async (report) => {
      send({ cycles: report.attempts.length, ms: performance.now() - started });
      await store.close();
      process.disconnect();
    });
  });
} else {
  const bare = openBare(dir);
  process.once("message", () => {
    const started = performance.now();
    let cycles = 0;
    const owner = `bare:${process.pid}`;
    if (mode === "fused") while (bare.fusedCycle(owner)) cycles += 1;
    else while (bare.cycle(owner)) cycles += 1;
    send({ cycles, ms: performance.now() - started });
    bare.close();
    process.disconnect();
  });
}
send("ready");
