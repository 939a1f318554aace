// Starts the test-only runner as a real child process. Not a test file.
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

const SCRIPT = fileURLToPath(new URL("./fakeRunnerProcess.ts", import.meta.url));

export interface RunnerProcess {
  child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal) and what it printed. */
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/**
 * `prefix` runs the runner under other commands that exec it in turn (a network namespace, a skewed
 * clock: ["ip", "netns", "exec", NS, "env", "LD_PRELOAD=..."]), so the child is still the runner.
 */
export function spawnRunner(env: Record<string, string>, args: string[] = ["--json"], prefix: readonly string[] = []): RunnerProcess {
  const argv = [process.execPath, "--import", "tsx", SCRIPT, "runner", ...args];
  const [command = process.execPath, ...rest] = [...prefix, ...argv];
  const child = spawn(command, rest, {
    env: { PATH: process.env["PATH"] ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) => {
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, done };
}
