// Runs the errand CLI as a real process with a given environment and standard input. Not a test file.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const MAIN = fileURLToPath(new URL("../../../src/interfaces/cli/main.ts", import.meta.url));
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
    const child = spawn(process.execPath, ["--import", TSX, MAIN, ...args], { env: cleanEnv(options.env), stdio: "pipe", ...(options.cwd === undefined ? {} : { cwd: options.cwd }) });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? "");
  });
}
