// Runs the errand CLI inside the test process: the same runCli that main.ts calls, given its own
// captured stdout, stderr and stdin (runCli's io) instead of a child process per command. Runs in
// flight at once keep their output apart. Not a test file.
import { runCli } from "../../src/interfaces/cli/runCli.js";
import { withOutputSink } from "../../src/interfaces/cli/output.js";
import type { OutputSink, Terminal } from "../../src/interfaces/cli/output.js";
import { cleanEnv } from "./errandProcess.js";

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * An output sink that keeps what is printed, with `stdin` as standard input. With `typed`, standard
 * input is a terminal where a person types those lines in order, one per question (the question is
 * printed on stderr, as a terminal shows it); without, input is piped and there is no terminal.
 */
export function capturedOutput(stdin = "", typed?: readonly string[]): { sink: OutputSink; stdout(): string; stderr(): string } {
  let stdout = "";
  let stderr = "";
  const answers = typed === undefined ? undefined : [...typed];
  const terminal: Terminal | undefined =
    answers === undefined
      ? undefined
      : {
          ask(prompt) {
            stderr += `${prompt}\n`;
            const answer = answers.shift();
            return answer === undefined ? Promise.reject(new Error(`the test typed nothing for the question "${prompt}"`)) : Promise.resolve(answer);
          },
        };
  return {
    sink: {
      out: (text) => void (stdout += text),
      err: (text) => void (stderr += text),
      errIsTty: () => false,
      readStdin: () => stdin,
      terminal: () => terminal,
    },
    stdout: () => stdout,
    stderr: () => stderr,
  };
}

/**
 * `errand ...args` in process with exactly `env` (nothing from process.env); stdin is `stdin` (empty
 * by default), or a terminal where `typed` is typed, answer by answer.
 */
export async function errandInProcess(args: readonly string[], env: Record<string, string>, stdin = "", typed?: readonly string[]): Promise<CliRun> {
  const output = capturedOutput(stdin, typed);
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
