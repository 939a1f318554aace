// Task budget: how long a typical 6-step task (goto, fill, click, wait_for, expect_text,
// extract_text) takes through errand's executor on local Chromium, idle and with 1 and 2 busy-loop
// processes taking the cores, against plain playwright-core doing the same steps in the same run.
// The numbers choose the default timeouts.taskMs (the budget must hold the slow tail under load).
// Usage: npx tsx bench/budget/budget.ts [runs=30] [loads=0,1,2]
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { loadavg } from "node:os";
import { randomUUID } from "node:crypto";
import type { Page } from "playwright-core";
import { createExecutor } from "../../src/executor/createExecutor.js";
import { createPolicyNetworkGuard } from "../../src/executor/policyNetworkGuard.js";
import { emptySecretVault } from "../../src/secrets/emptySecretVault.js";
import { createStaticResolver } from "../../src/policy/staticResolver.js";
import { parseAllowPrivate } from "../../src/policy/parseAllowPrivate.js";
import { createLocalProvider } from "../../src/providers/local/localProvider.js";
import { validateTask } from "../../src/task/validateTask.js";
import { launchPlainChromium } from "../support/launchPlainChromium.js";
import { serveLocalSite } from "../support/serveLocalSite.js";
import type { LocalSite } from "../support/serveLocalSite.js";

const runs = Number(process.argv[2] ?? 30);
const loads = (process.argv[3] ?? "0,1,2").split(",").map(Number);
// Generous on purpose: the bench measures the time a task needs, it must not be cut short.
const BENCH_BUDGET_MS = 120_000;

/** A renewal site: / (home), /renew (a card-number form), POST /renew answers 303 to /renewed, whose list arrives 100 ms late. */
function startRenewalSite(): Promise<LocalSite> {
  return serveLocalSite((req, res, url, html) => {
    if (req.method === "GET" && url.pathname === "/") return html(`<h1>Library</h1><a href="/renew">Renew loans</a>`, "Library");
    if (req.method === "GET" && url.pathname === "/renew") {
      return html(
        `<h1>Renew</h1><form method="post" action="/renew"><label>Card <input id="card" name="card"></label><button id="go" type="submit">Renew all</button></form>`,
        "Renew",
      );
    }
    if (req.method === "POST" && url.pathname === "/renew") {
      req.resume();
      req.on("end", () => void res.writeHead(303, { location: "/renewed" }).end());
      return true;
    }
    if (req.method === "GET" && url.pathname === "/renewed") {
      // The result is drawn by the page after a short delay, as a client-side app would.
      return html(
        `<div id="out"></div><script>setTimeout(() => { document.getElementById("out").innerHTML = '<p id="result">Renewed 3 loans</p><p id="due">Due 2027-01-02</p>'; }, 100);</script>`,
        "Renewed",
      );
    }
    return false;
  });
}

function renewalTask(origin: string): unknown {
  return {
    schemaVersion: "errand.task.v1",
    operationId: randomUUID(),
    label: "bench: renew loans",
    target: { url: `${origin}/` },
    risk: "reversible_write",
    approved: true,
    timeouts: { taskMs: BENCH_BUDGET_MS },
    steps: [
      { action: "goto", url: `${origin}/renew` },
      { action: "fill", selector: "#card", value: "2024-118" },
      { action: "click", selector: "#go" },
      { action: "wait_for", selector: "#result" },
      { action: "expect_text", selector: "#result", text: "Renewed 3 loans" },
      { action: "extract_text", selector: "#due", name: "due" },
    ],
  };
}

/** The same task written by hand in playwright-core, with the waits and checks errand makes. */
async function renewalByHand(p: Page, origin: string): Promise<void> {
  await p.goto(`${origin}/`, { waitUntil: "load" });
  await p.goto(`${origin}/renew`, { waitUntil: "load" });
  await p.locator("#card").fill("2024-118");
  await p.locator("#go").click();
  await p.locator("#result").waitFor({ state: "visible" });
  if (!(await p.locator("#result").innerText()).includes("Renewed 3 loans")) throw new Error("result");
  await p.locator("#due").innerText();
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
};
const busyLoop = (): ChildProcess => spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" });

const site = await startRenewalSite();
const allow = parseAllowPrivate([site.hostPort]);
if (!allow.ok) throw new Error("allowance");
const plainBrowser = await launchPlainChromium();

console.log(
  `${runs} runs per side per load, alternating; load average at start ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}`,
);
console.log("| busy loops | load avg (1 min) | first task, cold launch | errand p50 | p90 | max | plain p50 | p90 | max | ratio p50 | ratio p90 |");
console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
for (const load of loads) {
  const loops = Array.from({ length: load }, busyLoop);
  try {
    // A fresh provider per load: its first task includes launching Chromium, as a first task does.
    const provider = createLocalProvider({ env: process.env });
    const execute = createExecutor({
      provider,
      guard: createPolicyNetworkGuard({ resolver: createStaticResolver({}), allowPrivate: allow.value }),
      secrets: emptySecretVault(),
      defaultTaskTimeoutMs: BENCH_BUDGET_MS,
      defaultStepTimeoutMs: 10_000,
    });
    const runErrand = async (): Promise<number> => {
      const valid = validateTask(renewalTask(site.origin));
      if (!valid.ok) throw new Error("task");
      const t = performance.now();
      const { receipt } = await execute(valid.value, {
        requestDigest: "bench",
        attempt: 1,
        signal: new AbortController().signal,
        beforeMutationBoundary: () => Promise.resolve(),
      });
      if (receipt.status !== "PASS") throw new Error(`errand: ${receipt.status} ${JSON.stringify(receipt.error)}`);
      return performance.now() - t;
    };
    const cold = await runErrand();
    const errandTimes: number[] = [];
    const plainTimes: number[] = [];
    for (let i = 0; i < runs; i += 1) {
      errandTimes.push(await runErrand());
      const t = performance.now();
      const context = await plainBrowser.newContext({ serviceWorkers: "block", acceptDownloads: false });
      try {
        await renewalByHand(await context.newPage(), site.origin);
      } finally {
        await context.close();
      }
      plainTimes.push(performance.now() - t);
    }
    await provider.shutdown();
    const ms = (x: number) => `${x.toFixed(0)} ms`;
    const [e50, e90, eMax] = [quantile(errandTimes, 0.5), quantile(errandTimes, 0.9), Math.max(...errandTimes)];
    const [p50, p90, pMax] = [quantile(plainTimes, 0.5), quantile(plainTimes, 0.9), Math.max(...plainTimes)];
    console.log(
      `| ${load} | ${loadavg()[0]!.toFixed(1)} | ${ms(cold)} | ${ms(e50)} | ${ms(e90)} | ${ms(eMax)} | ${ms(p50)} | ${ms(p90)} | ${ms(pMax)} | ${(e50 / p50).toFixed(2)} | ${(e90 / p90).toFixed(2)} |`,
    );
  } finally {
    for (const loop of loops) loop.kill("SIGKILL");
  }
}
await plainBrowser.close();
await site.close();
