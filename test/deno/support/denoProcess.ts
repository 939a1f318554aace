// Deno processes as the Deno tests start them: through the npm package's launcher, in the
// repository, with the environment each test gives. Not a test file.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
/** The deno launcher of the npm package (it finds the platform's binary, also when npm ran no install script). */
const DENO_LAUNCHER = createRequire(import.meta.url).resolve("deno/bin.cjs");

/** A port free on 127.0.0.1 now, for a server that must know its public origin before it listens. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** A Deno server running: everything it printed so far, and one stop for it. */
export interface DenoServer {
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts `deno ARGS` and waits (at most 120 s) until its output says `ready`. It runs in its own
 * process group: the launcher starts the deno binary as its child, and a stop must reach both.
 */
export async function startDenoServer(args: readonly string[], env: NodeJS.ProcessEnv, ready: string): Promise<DenoServer> {
  const child = spawn(process.execPath, [DENO_LAUNCHER, ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const started = Date.now();
  while (!output.includes(ready)) {
    if (child.exitCode !== null) assert.fail(`deno ${args.at(-1) ?? ""} exited ${child.exitCode} before "${ready}":\n${output.slice(-3000)}`);
    if (Date.now() - started > 120_000) assert.fail(`deno ${args.at(-1) ?? ""} did not say "${ready}" within 120 s:\n${output.slice(-3000)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    output: () => output,
    async stop() {
      if (child.pid === undefined) return;
      const group = -child.pid;
      const closed = new Promise((resolve) => child.once("close", resolve));
      process.kill(group, "SIGTERM");
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      try {
        process.kill(group, "SIGKILL");
      } catch {
        // The group is gone already.
      }
    },
  };
}

/** Runs `deno ARGS` to its end: its exit code, everything it printed, and how long it took. */
export function runDenoOnce(args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [DENO_LAUNCHER, ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out, ms: Date.now() - started }));
  });
}
