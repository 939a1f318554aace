// Runs the errand CLI as a real process (one command, or `errand serve` until stopped) with a given environment. Not a test file.
import { spawn } from "node:child_process";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { fileURLToPath } from "node:url";

const MAIN = fileURLToPath(new URL("../../src/interfaces/cli/main.ts", import.meta.url));
const TSX = import.meta.resolve("tsx");

export interface ErrandRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The parent's environment without errand's own variables, plus `env`. */
export function cleanEnv(env: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith("ERRAND_") && key !== "NODE_OPTIONS") out[key] = value;
  }
  return Object.assign(out, env);
}

export function runErrand(args: string[], options: { env: Record<string, string>; stdin?: string; cwd?: string }): Promise<ErrandRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", TSX, MAIN, ...args], {
      env: cleanEnv(options.env),
      stdio: "pipe",
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? "");
  });
}

/** A running `errand serve` child. */
export interface ServedErrand {
  child: ChildProcessWithoutNullStreams;
  /** http://127.0.0.1:PORT, from its "listening on" line. */
  origin: string;
  stdout(): string;
  stderr(): string;
  /** SIGTERM, then its exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts `errand serve --port 0 ...args` and resolves once it has printed where it listens and its
 * "Next:" advice (its whole start-up banner); rejects if it exits first or is not up in time.
 */
export function startServe(args: string[], options: { env: Record<string, string>; startTimeoutMs?: number }): Promise<ServedErrand> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", TSX, MAIN, "serve", "--port", "0", ...args], { env: cleanEnv(options.env), stdio: "pipe" });
    let stdout = "";
    let stderr = "";
    const exited = new Promise<number | null>((done) => child.on("close", (code) => done(code)));
    const limitMs = options.startTimeoutMs ?? 30_000;
    // A serve that misses its start limit is killed, so it cannot outlive the test holding its port, home and browsers.
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`serve did not start within ${limitMs} ms (killed): ${stderr}`));
    }, limitMs);
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (match === null || !stdout.includes("Next:")) return;
      clearTimeout(timer);
      resolve({
        child,
        origin: match[1] ?? "",
        stdout: () => stdout,
        stderr: () => stderr,
        stop: () => {
          child.kill("SIGTERM");
          return exited;
        },
      });
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited ${code}: ${stderr}`));
    });
  });
}
