// Executor overhead: the same 6-step task run (a) by errand's executor and (b) by a minimal
// hand-written playwright-core script on the same warm Chromium, alternating, N runs each.
// Then the cold path: `errand run` as a fresh process against a plain script that launches Chromium.
// Usage: npx tsx bench/overhead/overhead.ts [runs=30] [coldRuns=5]
import { spawn } from "node:child_process";
import { writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { createExecutor } from "../../src/executor/createExecutor.js";
import { createPolicyNetworkGuard } from "../../src/executor/policyNetworkGuard.js";
import { emptySecretVault } from "../../src/secrets/emptySecretVault.js";
import { createStaticResolver } from "../../src/policy/staticResolver.js";
import { parseAllowPrivate } from "../../src/policy/parseAllowPrivate.js";
import { LOCKED_DOWN_CHROMIUM_ARGS } from "../../src/providers/local/chromiumLaunch.js";
import { createLocalProvider } from "../../src/providers/local/localProvider.js";
import { findChromium } from "../../src/providers/local/findChromium.js";
import { startDemoSite } from "../../src/demo/demoSite.js";
import { demoReadTask } from "../../src/demo/demoTasks.js";
import { validateTask } from "../../src/task/validateTask.js";
import { demoReadByHand } from "../support/demoReadByHand.js";

const runs = Number(process.argv[2] ?? 30);
const coldRuns = Number(process.argv[3] ?? 5);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

const site = await startDemoSite();
const allow = parseAllowPrivate([site.hostPort]);
if (!allow.ok) throw new Error("allowance");
const provider = createLocalProvider({ env: process.env });
const execute = createExecutor({
  provider,
  guard: createPolicyNetworkGuard({ resolver: createStaticResolver({}), allowPrivate: allow.value }),
  secrets: emptySecretVault(),
  defaultTaskTimeoutMs: 25_000,
  defaultStepTimeoutMs: 10_000,
});

// Warm the executor's browser, then reuse the very same Browser for the baseline.
const warmSession = await provider.openSession({ budgetMs: 25_000, signal: new AbortController().signal });
const browser = warmSession.context.browser();
await warmSession.release();
if (browser === null) throw new Error("no browser");

const errandTimes: number[] = [];
const plainTimes: number[] = [];
for (let i = 0; i < runs; i += 1) {
  const valid = validateTask({ ...(demoReadTask(site.origin) as object), operationId: randomUUID() });
  if (!valid.ok) throw new Error("task");
  let t = performance.now();
  const { receipt } = await execute(valid.value, {
    requestDigest: "bench",
    attempt: 1,
    signal: new AbortController().signal,
    beforeMutationBoundary: () => Promise.resolve(),
  });
  if (receipt.status !== "PASS") throw new Error(`errand run ${i}: ${receipt.status} ${JSON.stringify(receipt.error)}`);
  errandTimes.push(performance.now() - t);

  t = performance.now();
  const context = await browser.newContext({ serviceWorkers: "block", acceptDownloads: false });
  try {
    await demoReadByHand(await context.newPage(), site.origin);
  } finally {
    await context.close();
  }
  plainTimes.push(performance.now() - t);
}
await provider.shutdown();

const warmErrand = median(errandTimes);
const warmPlain = median(plainTimes);
console.log(`warm: ${runs} runs each, alternating`);
console.log(`  errand executor median ${warmErrand.toFixed(1)} ms`);
console.log(`  hand-written script median ${warmPlain.toFixed(1)} ms`);
console.log(`  ratio ${(warmErrand / warmPlain).toFixed(3)} (target <= 1.15)`);

// Cold: whole processes, start to receipt.
const dir = mkdtempSync(join(tmpdir(), "errand-bench-"));
const taskFile = join(dir, "task.json");
const plainScript = join(dir, "plain.mjs");
const executable = findChromium(process.env);
writeFileSync(
  plainScript,
  `import { chromium } from ${JSON.stringify(import.meta.resolve("playwright-core"))};
const origin = process.argv[2];
const browser = await chromium.launch({ executablePath: ${JSON.stringify(executable)}, headless: true, args: ${JSON.stringify(LOCKED_DOWN_CHROMIUM_ARGS)} });
const context = await browser.newContext();
const page = await context.newPage();
await page.goto(origin + "/", { waitUntil: "load" });
await page.locator("#status").first().waitFor({ state: "visible" });
await page.locator("#status").innerText();
await page.locator("#owner").getAttribute("data-plan");
await page.locator("#title").innerText();
await page.locator("#status").innerText();
page.url();
await browser.close();
`,
);
// The site lives in this process, so children must be awaited asynchronously (a sync spawn would stall it).
function runProcess(args: string[], env: NodeJS.ProcessEnv): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("close", (status) => resolve({ status, output }));
  });
}
const coldErrand: number[] = [];
const coldPlain: number[] = [];
for (let i = 0; i < coldRuns; i += 1) {
  writeFileSync(taskFile, JSON.stringify({ ...(demoReadTask(site.origin) as object), operationId: randomUUID() }));
  let t = performance.now();
  const errandRun = await runProcess(["dist/src/interfaces/cli/main.js", "run", taskFile, "--allow-private", site.hostPort], {
    ...process.env,
    ERRAND_HOME: dir,
  });
  coldErrand.push(performance.now() - t);
  if (errandRun.status !== 0) throw new Error(`cold errand run exited ${errandRun.status}: ${errandRun.output}`);
  t = performance.now();
  const plain = await runProcess([plainScript, site.origin], process.env);
  coldPlain.push(performance.now() - t);
  if (plain.status !== 0) throw new Error(`plain script exited ${plain.status}: ${plain.output}`);
}
await site.close();
console.log(`cold: ${coldRuns} runs each (process start to receipt)`);
console.log(`  errand run median ${median(coldErrand).toFixed(0)} ms`);
console.log(`  plain launch script median ${median(coldPlain).toFixed(0)} ms`);
console.log(`  ratio ${(median(coldErrand) / median(coldPlain)).toFixed(3)}`);
