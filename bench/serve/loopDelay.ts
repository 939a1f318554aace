// Loaded into the `errand serve` process the serve bench starts (node --import): watches how late
// serve's event loop runs its timers (perf_hooks.monitorEventLoopDelay, 5 ms resolution). On
// SIGUSR2 it writes what it saw since the last SIGUSR2 to ERRAND_BENCH_LOOP_FILE (JSON, ms) and
// starts over, so the bench can read the delay of each measured batch alone. The histogram records
// each whole interval between samples (5 ms when nothing blocks), so the resolution is taken off:
// what is written is how long the loop was held up past it, and `stalledMs` is the sum of that.
import { writeFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";

const file = process.env["ERRAND_BENCH_LOOP_FILE"];
if (file !== undefined && file !== "") {
  const RESOLUTION_MS = 5;
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  const late = (ns: number) => Math.max(0, Math.round((ns / 1e6 - RESOLUTION_MS) * 100) / 100);
  process.on("SIGUSR2", () => {
    const seen = {
      p50: late(histogram.percentile(50)),
      p90: late(histogram.percentile(90)),
      p99: late(histogram.percentile(99)),
      max: late(histogram.max),
      stalledMs: Math.round(Math.max(0, histogram.mean / 1e6 - RESOLUTION_MS) * histogram.count),
      samples: histogram.count,
    };
    histogram.reset();
    writeFileSync(file, JSON.stringify(seen));
  });
}
