// Program mode against CDP mode on the same local Browserless server: the demo's 6-step read task,
// run N times each, alternating, through errand's two executors (program: one POST /function;
// CDP: a session over the DevTools protocol, its documents fetched by errand through the egress
// proxy, as the router wires cloud providers). A counting proxy in front of Browserless counts the
// round trips each mode costs. Needs the Browserless server in .ci/browserless (or
// ERRAND_BROWSERLESS_DIR) and Debian's Chromium.
// With a delay, the proxy holds each chunk that long each way (a stand-in for the network to a cloud provider).
// Usage: npx tsx bench/program/program.ts [runs=10] [oneWayDelayMs=0]
import { randomUUID } from "node:crypto";
import { startSessionProxy } from "../../src/app/buildExecutor.js";
import { operatorNetworkPolicy } from "../../src/app/operatorNetworkPolicy.js";
import { createExecutor } from "../../src/executor/createExecutor.js";
import { createProgramExecutor } from "../../src/executor/createProgramExecutor.js";
import type { ExecuteTask } from "../../src/executor/executeTaskTypes.js";
import { startDemoSite } from "../../src/demo/demoSite.js";
import { demoReadTask } from "../../src/demo/demoTasks.js";
import { createBrowserlessProvider } from "../../src/providers/browserlessProvider.js";
import { withCappedDocuments } from "../../src/providers/withCappedDocuments.js";
import { emptySecretVault } from "../../src/secrets/emptySecretVault.js";
import { validateTask } from "../../src/task/validateTask.js";
import { browserlessUnavailable, startBrowserlessServer } from "../../test/fixtures/browserlessServer.js";
import { startCountingProxy } from "./countingProxy.js";

const runs = Number(process.argv[2] ?? 10);
const delayMs = Number(process.argv[3] ?? 0);
const TOKEN = "errand-bench-program-token";
const missing = browserlessUnavailable();
if (missing !== null) throw new Error(missing);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

const site = await startDemoSite();
const server = await startBrowserlessServer({ token: TOKEN, concurrent: 1, queued: 4, timeoutMs: 60_000 });
const proxy = await startCountingProxy({ host: "127.0.0.1", port: Number(new URL(server.httpBase).port) }, delayMs);
const env = { BROWSERLESS_TOKEN: TOKEN, BROWSERLESS_BASE_URL: `http://127.0.0.1:${proxy.port}` };
const policy = operatorNetworkPolicy({ ERRAND_RESOLVER: "system" }, [site.hostPort]);
const ports = { guard: policy.guard, secrets: emptySecretVault(), defaultTaskTimeoutMs: 30_000, defaultStepTimeoutMs: 10_000 };
const browserless = createBrowserlessProvider({ env });
const cdp = createExecutor({
  provider: withCappedDocuments(browserless, { proxyForSession: (scope) => startSessionProxy(policy, scope), maxDocumentBytes: 10 * 1024 * 1024 }),
  ...ports,
});
const program = createProgramExecutor({ provider: browserless, ...ports }).execute;

const modes: { name: string; execute: ExecuteTask; times: number[]; http: number[]; frames: number[] }[] = [
  { name: "cdp", execute: cdp, times: [], http: [], frames: [] },
  { name: "program", execute: program, times: [], http: [], frames: [] },
];

try {
  for (let i = -1; i < runs; i += 1) {
    for (const mode of modes) {
      const valid = validateTask({ ...(demoReadTask(site.origin) as object), operationId: randomUUID() });
      if (!valid.ok) throw new Error("task");
      proxy.reset();
      const started = performance.now();
      const { receipt } = await mode.execute(valid.value, {
        requestDigest: "bench",
        attempt: 1,
        signal: new AbortController().signal,
        beforeMutationBoundary: () => Promise.resolve(),
      });
      const took = performance.now() - started;
      if (receipt.status !== "PASS") throw new Error(`${mode.name} run ${i}: ${receipt.status} ${JSON.stringify(receipt.error)}`);
      // The first round of each mode warms the server and the processes; it is not counted.
      if (i < 0) continue;
      const counts = proxy.counts();
      mode.times.push(took);
      mode.http.push(counts.httpRequests);
      mode.frames.push(counts.webSocketFrames);
    }
  }
} finally {
  await proxy.close();
  await server.stop();
  await site.close();
}

const [base, prog] = modes;
if (base === undefined || prog === undefined) throw new Error("modes");
const row = (mode: (typeof modes)[number]) =>
  `| ${mode.name} | ${median(mode.times).toFixed(0)} ms | ${Math.min(...mode.times).toFixed(0)}-${Math.max(...mode.times).toFixed(0)} ms | ${median(mode.http)} | ${median(mode.frames)} | ${(median(mode.times) / median(base.times)).toFixed(3)} |`;
console.log(`runs per mode: ${runs} (alternating, after one warm-up round each); one-way delay ${delayMs} ms`);
console.log("| mode | median wall time | range | HTTP requests | CDP frames sent | ratio to cdp |");
console.log("| --- | --- | --- | --- | --- | --- |");
console.log(row(base));
console.log(row(prog));
