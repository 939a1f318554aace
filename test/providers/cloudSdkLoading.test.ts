import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SDKS = ["@onkernel/sdk", "@browserbasehq/sdk", "steel-sdk"];

// A child process records every module Node loads (a resolve hook, so any path counts: static,
// dynamic, through another package), builds the executor errand run / runner / serve use with no
// credential set, asks each cloud provider whether it is configured, and then, as a control that the
// recording sees packages at all, imports one SDK itself.
const CHILD = `
import { register } from "node:module";
import { MessageChannel } from "node:worker_threads";
const { port1, port2 } = new MessageChannel();
const loaded = new Set();
port1.on("message", (url) => loaded.add(url));
const hooks = "export let port; export function initialize(data) { port = data.port; } export async function resolve(s, c, next) { const r = await next(s, c); port.postMessage(r.url); return r; }";
register("data:text/javascript," + encodeURIComponent(hooks), { data: { port: port2 }, transferList: [port2] });
const packagesLoaded = async () => { await new Promise((r) => setTimeout(r, 50)); return ${JSON.stringify(SDKS)}.filter((name) => [...loaded].some((url) => url.includes("/node_modules/" + name + "/"))); };
const { buildRoutedExecutor } = await import(${JSON.stringify(pathToFileURL(join(ROOT, "src/app/buildRoutedExecutor.ts")).href)});
const { resolveRuntimeConfig } = await import(${JSON.stringify(pathToFileURL(join(ROOT, "src/config/runtimeConfig.ts")).href)});
const env = { ERRAND_HOME: process.argv[1] };
const built = buildRoutedExecutor({ env, allowPrivate: [], config: resolveRuntimeConfig(env) });
const configured = Object.entries(built.providers).map(([name, p]) => [name, p.missingConfiguration() === null]);
const before = await packagesLoaded();
await built.shutdown();
await import("steel-sdk");
const after = await packagesLoaded();
port1.close();
console.log(JSON.stringify({ before, after, configured }));
`;

test("building errand's executor loads no cloud provider SDK: they load when a session on that provider opens", async () => {
  const home = mkdtempSync(join(tmpdir(), "errand-sdk-loading-"));
  try {
    const { stdout } = await run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", CHILD, home], {
      cwd: ROOT,
      env: { PATH: process.env["PATH"] ?? "" },
    });
    const report = JSON.parse(stdout.trim().split("\n").pop() ?? "") as { before: string[]; after: string[]; configured: [string, boolean][] };
    assert.deepEqual(report.before, [], "no SDK loaded while building the executor and checking configuration");
    assert.deepEqual(report.after, ["steel-sdk"], "the recording sees a package once it is imported");
    assert.deepEqual(report.configured.map(([name]) => name).sort(), ["browserbase", "browserless", "kernel", "local", "steel"]);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
