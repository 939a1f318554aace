// One benchmark runner process: waits for "go" from the parent, drains the queue, reports.
// Usage (by queue.ts only): worker.ts errand|bare <dir>
import { openBare, openErrand } from "./benchSupport.js";

const [mode, dir] = process.argv.slice(2);
if ((mode !== "errand" && mode !== "bare") || dir === undefined) throw new Error("usage: worker.ts errand|bare <dir>");
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
    while (bare.cycle(`bare:${process.pid}`)) cycles += 1;
    send({ cycles, ms: performance.now() - started });
    bare.close();
    process.disconnect();
  });
}
send("ready");
