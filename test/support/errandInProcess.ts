// Runs the errand CLI inside the test process: the same runCli that main.ts calls, given its own
// captured stdout, stderr and stdin (runCli's io) instead of a child process per command. Runs in
// flight at once keep their output apart. Not a test file.
import { runCli } from "../../src/interfaces/cli/runCli.js";
import { withOutputSink } from "../../src/interfaces/cli/output.js";
import type { OutputSink } from "../../src/interfaces/cli/output.js";
import { cleanEnv } from "./errandProcess.js";

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** An output sink that keeps what is printed, with `stdin` as standard input and no terminal. */
export function capturedOutput(stdin = ""): { sink: OutputSink; stdout(): string; stderr(): string } {
  let stdout = "";
  let stderr = "";
  return {
    sink: { out: (text) => void (stdout += text), err: (text) => void (stderr += text), errIsTty: () => false, readStdin: () => stdin },
    stdout: () => stdout,
    stderr: () => stderr,
  };
}

/** `errand ...args` in process with exactly `env` (nothing from process.env); stdin is `stdin` (empty by default). */
export async function errandInProcess(args: readonly string[], env: Record<string, string>, stdin = ""): Promise<CliRun> {
  const output = capturedOutput(stdin);
  const code = await runCli(args, env, output.sink);
  return { code, stdout: output.stdout(), stderr: output.stderr() };
}

/**
 * runErrand's in-process twin: the same environment as the spawned command would get (the test's
 * own without errand's variables, plus `env`), the same stdin and the same result shape.
 */
export function runErrandInProcess(args: readonly string[], options: { env: Record<string, string>; stdin?: string }): Promise<CliRun> {
  return errandInProcess(args, cleanEnv(options.env), options.stdin ?? "");
}

/** Runs `body` (a command's `run`, called directly) with its output captured; stdin is empty. */
export async function capturingOutput<T>(body: () => T | Promise<T>): Promise<{ value: T; stdout: string; stderr: string }> {
  const output = capturedOutput();
  const value = await withOutputSink(output.sink, async () => body());
  return { value, stdout: output.stdout(), stderr: output.stderr() };
}
