// The whole form task as an assistant sees it, three ways, interleaved in one run:
//   errand:  one MCP `errand_run` call (MCP SDK client, Streamable HTTP over loopback, an OAuth
//            bearer obtained through errand's own consent page) to a real `errand serve` process
//            that runs the task on local Chromium (warm: its browser started in the warm-up);
//   Playwright MCP: @playwright/mcp (default tools, headless, isolated, Debian Chromium) driven by
//            the same SDK client over stdio in the calls a model makes: navigate, snapshot, type,
//            click, snapshot (its browser and page stay open between tasks, as in a chat);
//   plain:   playwright-core in this process, one warm browser, a fresh context per task;
//   and, to show where errand's time goes, errand's executor called in this process (the one serve
//            builds: router, local provider, egress proxy, guards; no MCP, HTTP, store or queue).
// Each round runs the three in a rotating order; medians over rounds. Only tool time is measured
// (no model time between calls). Every task must reach the site with its own name, or the bench fails.
// Needs `npm ci --prefix bench/assistant` (Playwright MCP is not one of errand's dependencies).
// Usage: npx tsx bench/assistant/assistant.ts [rounds=15] [warmup=2]
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { resolveRuntimeConfig } from "../../src/config/runtimeConfig.js";
import { buildRoutedExecutor } from "../../src/app/buildRoutedExecutor.js";
import { validateTask } from "../../src/task/validateTask.js";
import { obtainGrant } from "../../test/interfaces/http/support/oauthDance.js";
import { formByHand } from "../support/formByHand.js";
import { launchPlainChromium } from "../support/launchPlainChromium.js";
import { startServeProcess } from "../support/startServeProcess.js";
import { startFormSite } from "./formSite.js";

const rounds = Number(process.argv[2] ?? 15);
const warmup = Number(process.argv[3] ?? 2);
/** Untimed pause after every side's task (see the round loop). */
const SETTLE_MS = 1500;
const PLAYWRIGHT_MCP = fileURLToPath(new URL("./node_modules/@playwright/mcp/cli.js", import.meta.url));
const PLAYWRIGHT_MCP_CHROMIUM = "/usr/bin/chromium";
const PASSWORD = "a long bench owner password";
const CALLBACK = "http://127.0.0.1:47999/callback";

if (!existsSync(PLAYWRIGHT_MCP)) {
  console.error("Playwright MCP is not installed for this bench: run `npm ci --prefix bench/assistant` first.");
  process.exit(2);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))]!;

const site = await startFormSite();
const scratch = mkdtempSync(join(tmpdir(), "errand-bench-assistant-"));

/** errand serve's environment: its own home, the owner's password, the bench site allowed. */
const serveEnv: NodeJS.ProcessEnv = {
  PATH: process.env["PATH"] ?? "",
  HOME: process.env["HOME"] ?? "",
  ERRAND_HOME: join(scratch, "errand"),
  ERRAND_OWNER_PASSWORD: PASSWORD,
  ERRAND_ALLOW_PRIVATE: site.hostPort,
  ERRAND_OAUTH_EXTRA_REDIRECTS: CALLBACK,
  // The bench times errand running a reversible write, not the owner approving it: reversible writes run unattended here.
  ERRAND_OWNER_APPROVAL: "consequential,secret",
};

const served = await startServeProcess(serveEnv);
const grant = await obtainGrant((url, init) => fetch(url, init), served.origin, PASSWORD, CALLBACK);
if (!grant.accessToken) throw new Error("no OAuth access token");
const errand = new Client({ name: "bench-assistant", version: "1.0.0" });
await errand.connect(
  new StreamableHTTPClientTransport(new URL(`${served.origin}/mcp`), { requestInit: { headers: { authorization: `Bearer ${grant.accessToken}` } } }),
);

const playwrightMcpDir = join(scratch, "playwright-mcp");
const playwrightMcpArgs = [
  PLAYWRIGHT_MCP,
  "--headless",
  "--isolated",
  "--executable-path",
  PLAYWRIGHT_MCP_CHROMIUM,
  "--output-dir",
  join(playwrightMcpDir, "out"),
  ...(process.getuid?.() === 0 ? ["--no-sandbox"] : []),
];
const playwrightMcp = new Client({ name: "bench-assistant", version: "1.0.0" });
await playwrightMcp.connect(new StdioClientTransport({ command: process.execPath, args: playwrightMcpArgs, cwd: scratch, stderr: "ignore" }));

const browser = await launchPlainChromium();
const executorEnv = { PATH: process.env["PATH"] ?? "", ERRAND_HOME: join(scratch, "in-process") };
const inProcess = buildRoutedExecutor({ env: executorEnv, allowPrivate: [site.hostPort], config: resolveRuntimeConfig(executorEnv), keepSpare: true });

function textOf(result: Awaited<ReturnType<Client["callTool"]>>): string {
  if (result.isError === true) throw new Error(`tool error: ${JSON.stringify(result.content).slice(0, 500)}`);
  return (result.content as { type: string; text?: string }[]).map((part) => part.text ?? "").join("\n");
}

function expectReceived(name: string): void {
  const count = site.received.filter((n) => n === name).length;
  if (count !== 1) throw new Error(`the site received "${name}" ${count} times, not once`);
}

function formTask(name: string) {
  return {
    schemaVersion: "errand.task.v1",
    operationId: randomUUID(),
    label: "bench: send the contact form",
    target: { url: `${site.origin}/form` },
    risk: "reversible_write",
    approved: true,
    steps: [
      { action: "fill", selector: "#name", value: name },
      { action: "click", selector: "#send" },
      { action: "expect_text", selector: "#result", text: `Thanks, ${name}.`, match: "exact" },
    ],
  };
}

async function errandTask(name: string): Promise<number> {
  const task = formTask(name);
  const started = performance.now();
  const result = await errand.callTool({ name: "errand_run", arguments: { task, waitSeconds: 45 } });
  const ms = performance.now() - started;
  const output = result.structuredContent as { status?: string; receipt?: { status?: string } } | undefined;
  if (output?.receipt?.status !== "PASS") throw new Error(`errand_run: ${textOf(result).slice(0, 500)}`);
  expectReceived(name);
  return ms;
}

const playwrightMcpCalls: Record<string, number[]> = { navigate: [], snapshot: [], type: [], click: [], "snapshot (after)": [] };
async function playwrightMcpTask(name: string): Promise<number> {
  const call = async (label: string, tool: string, args: Record<string, unknown>): Promise<string> => {
    const t = performance.now();
    const text = textOf(await playwrightMcp.callTool({ name: tool, arguments: args }));
    playwrightMcpCalls[label]?.push(performance.now() - t);
    return text;
  };
  const started = performance.now();
  await call("navigate", "browser_navigate", { url: `${site.origin}/form` });
  const snapshot = await call("snapshot", "browser_snapshot", {});
  const field = /textbox "Name" \[ref=([\w-]+)\]/.exec(snapshot)?.[1];
  const button = /button "Send" \[ref=([\w-]+)\]/.exec(snapshot)?.[1];
  if (field === undefined || button === undefined) throw new Error(`no refs in the snapshot: ${snapshot.slice(0, 500)}`);
  await call("type", "browser_type", { element: "Name field", target: field, text: name });
  await call("click", "browser_click", { element: "Send button", target: button });
  const after = await call("snapshot (after)", "browser_snapshot", {});
  const ms = performance.now() - started;
  if (!after.includes(`Thanks, ${name}.`)) throw new Error(`Playwright MCP: no thank-you line in ${after.slice(0, 500)}`);
  expectReceived(name);
  return ms;
}

async function plainTask(name: string): Promise<number> {
  const started = performance.now();
  const context = await browser.newContext({ serviceWorkers: "block", acceptDownloads: false });
  try {
    await formByHand(await context.newPage(), site.origin, name);
  } finally {
    await context.close();
  }
  const ms = performance.now() - started;
  expectReceived(name);
  return ms;
}

async function executorTask(name: string): Promise<number> {
  const valid = validateTask(formTask(name));
  if (!valid.ok) throw new Error("form task");
  const started = performance.now();
  const { receipt } = await inProcess.execute(valid.value, {
    requestDigest: "bench",
    attempt: 1,
    signal: new AbortController().signal,
    beforeMutationBoundary: () => Promise.resolve(),
  });
  const ms = performance.now() - started;
  if (receipt.status !== "PASS") throw new Error(`executor: ${receipt.status} ${JSON.stringify(receipt.error)}`);
  expectReceived(name);
  return ms;
}

const sides = [
  { label: "errand (1 MCP call: errand_run)", run: errandTask, times: [] as number[] },
  { label: "Playwright MCP (5 MCP calls)", run: playwrightMcpTask, times: [] as number[] },
  { label: "plain playwright-core", run: plainTask, times: [] as number[] },
  { label: "errand executor in process (no MCP, no queue)", run: executorTask, times: [] as number[] },
];
const [errandSide, playwrightMcpSide, plainSide, executorSide] = sides as [(typeof sides)[0], (typeof sides)[0], (typeof sides)[0], (typeof sides)[0]];

try {
  for (let round = 0; round < warmup; round += 1) for (const [i, side] of sides.entries()) await side.run(`Warm ${round} ${i}`);
  for (const list of Object.values(playwrightMcpCalls)) list.length = 0;
  for (let round = 0; round < rounds; round += 1) {
    for (let k = 0; k < sides.length; k += 1) {
      const index = (round + k) % sides.length;
      const side = sides[index]!;
      side.times.push(await side.run(`Round ${round} ${index}`));
      // A pause between sides, outside every timing: errand serve opens its next spare context after
      // a task ends (src/providers/local/localProvider.ts), and that work must not land inside
      // another side's timed task (in a chat, calls are seconds apart anyway).
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    }
  }
} finally {
  await errand.close();
  await playwrightMcp.close();
  await browser.close();
  await inProcess.shutdown();
  served.child.kill("SIGTERM");
  await new Promise((resolve) => served.child.once("close", resolve));
  await site.close();
  rmSync(scratch, { recursive: true, force: true });
}

const ratio = (a: number[], b: number[]) => (median(a) / median(b)).toFixed(2);
const perRound = (a: number[], b: number[]) => median(a.map((x, i) => x / b[i]!)).toFixed(2);
console.log(`form task, ${rounds} rounds after ${warmup} warm-up rounds, sides in rotating order`);
console.log("| side | median | p25 | p75 |\n| --- | --- | --- | --- |");
for (const side of sides)
  console.log(
    `| ${side.label} | ${median(side.times).toFixed(0)} ms | ${quantile(side.times, 0.25).toFixed(0)} ms | ${quantile(side.times, 0.75).toFixed(0)} ms |`,
  );
console.log(
  `errand / Playwright MCP: ${ratio(errandSide.times, playwrightMcpSide.times)} (median of per-round ratios ${perRound(errandSide.times, playwrightMcpSide.times)}; target <= 0.7)`,
);
console.log(
  `errand / plain: ${ratio(errandSide.times, plainSide.times)} (median of per-round ratios ${perRound(errandSide.times, plainSide.times)}; target <= 1.10)`,
);
console.log(
  `errand executor in process / plain: ${ratio(executorSide.times, plainSide.times)}; errand_run minus executor (MCP, OAuth, store, queue, worker pool): ${(median(errandSide.times) - median(executorSide.times)).toFixed(0)} ms of medians`,
);
console.log(
  `Playwright MCP per call, medians: ${Object.entries(playwrightMcpCalls)
    .map(([label, xs]) => `${label} ${median(xs).toFixed(0)} ms`)
    .join(", ")}`,
);
console.log(`samples (ms): ${JSON.stringify(Object.fromEntries(sides.map((s) => [s.label, s.times.map((t) => Math.round(t))])))}`);
