// Startup benchmark: how long `errand provider list` takes as a fresh process (the lean install's
// target: under 0.5 s), against baselines in the same run: a bare `node -e ""`, `errand --version`
// (the CLI's own floor), and a process that only imports what `provider list` used to load (the
// four provider SDKs and playwright-core). Runs the built CLI (dist/; npm run build first).
// Usage: node bench/startup/startup.mjs [runs=15]
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const runs = Number(process.argv[2] ?? 15);
const home = mkdtempSync(join(tmpdir(), "errand-bench-startup-"));
const env = { PATH: process.env.PATH, HOME: home, ERRAND_HOME: join(home, "state") };
const main = "dist/src/interfaces/cli/main.js";
const sdkImports = ["@browserbasehq/sdk", "steel-sdk", "@onkernel/sdk", "playwright-core"].map((m) => `await import(${JSON.stringify(m)});`).join("");

const cases = {
  "node -e ''": ["-e", ""],
  "errand --version": [main, "--version"],
  "errand provider list": [main, "provider", "list"],
  "import the SDKs + playwright-core": ["--input-type=module", "-e", sdkImports],
};

function once(args) {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { env, encoding: "utf8" });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(" ")} exited ${result.status}: ${result.stderr}`);
  return ms;
}

const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
once([main, "provider", "list"]); // creates the state once, like any real use
for (let i = 0; i < runs; i += 1) {
  // Interleaved so a load spike on a shared machine hits every case alike.
  for (const [name, args] of Object.entries(cases)) samples[name].push(once(args));
}
rmSync(home, { recursive: true, force: true });

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const floor = median(samples["errand --version"]);
console.log(`startup, median of ${runs} runs (ms), ratio to errand --version in the same run`);
for (const [name, xs] of Object.entries(samples)) console.log(`  ${name.padEnd(36)} ${median(xs).toFixed(0).padStart(6)}  x${(median(xs) / floor).toFixed(2)}`);
