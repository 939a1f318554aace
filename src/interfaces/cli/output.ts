/**
 * The only place in src/ that writes to the terminal. Everything printed passes through here so
 * that the secret redactor is applied once for all output, and so one CLI run can be given its own
 * streams (runCli's `io`: tests run the CLI in process with captured output) without touching the
 * process's.
 *
 * Where a line goes is decided per run: inside `withOutputSink(sink, body)` (an AsyncLocalStorage
 * context, so runs in flight at once in one process stay apart) it goes to that sink, in that run's
 * line shape; anywhere else it goes to the process's streams. Revealed secrets are the exception on
 * purpose: a value revealed by any run is scrubbed from every line of every run and of the process,
 * so giving a run its own streams never narrows what is scrubbed.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { readFileSync } from "node:fs";
import { Redactor } from "../../executor/redactor.js";
import { processTerminal } from "./processTerminal.js";

/** Where one run's output goes: the process's own streams unless the run was given other ones. */
export interface OutputSink {
  out(text: string): void;
  err(text: string): void;
  errIsTty(): boolean;
  /** All of standard input, for "-" arguments. */
  readStdin(): string;
  /** The terminal standard input is, when it is one: how errand asks the person at it; undefined when input is piped. */
  terminal(): Terminal | undefined;
}

/** A person at a terminal that errand can ask a question (the prompt goes to stderr). */
export interface Terminal {
  /** One answered line; with `echo` false what is typed is not shown (passwords, secret values). */
  ask(prompt: string, echo: boolean): Promise<string>;
}

/** Turns one printed line into the log format in force, or leaves it as it is. */
export type LineShape = (line: string) => string;

/** The output settings of one run (or of the process, outside any run given its own sink). */
interface OutputRun {
  readonly sink: OutputSink;
  shape: LineShape | undefined;
  /** Where the process's stderr text goes instead of process.stderr; read by the process sink only. */
  stderrWriter: ((text: string) => void) | undefined;
}

/** Every declared secret this process has revealed, in any run; scrubbed from every line, whatever printed it. */
const secrets = new Redactor();

const processRun: OutputRun = {
  sink: {
    out: (text) => void process.stdout.write(text),
    err: (text) => (processRun.stderrWriter === undefined ? void process.stderr.write(text) : processRun.stderrWriter(text)),
    errIsTty: () => process.stderr.isTTY,
    readStdin: () => readFileSync(0, "utf8"),
    terminal: () => (process.stdin.isTTY === true ? processTerminal : undefined),
  },
  shape: undefined,
  stderrWriter: undefined,
};

const runs = new AsyncLocalStorage<OutputRun>();

function currentRun(): OutputRun {
  return runs.getStore() ?? processRun;
}

/**
 * Runs `body` with everything it prints (and everything started from it prints, however late)
 * going to `sink`, and standard input read from it. Line shapes and stderr writers set inside
 * apply to this run only.
 */
export function withOutputSink<T>(sink: OutputSink, body: () => Promise<T>): Promise<T> {
  return runs.run({ sink, shape: undefined, stderrWriter: undefined }, body);
}

/**
 * Sends the process's stderr text through `write` instead of process.stderr (errand serve's
 * asynchronous writer, asyncWriter.ts); `undefined` goes back to process.stderr. Inside a run given
 * its own sink it changes nothing that sink receives.
 */
export function setStderrWriter(write: ((text: string) => void) | undefined): void {
  currentRun().stderrWriter = write;
}

/**
 * Makes every line the current run prints on stdout or stderr pass through `next` (errand serve
 * --log-format json turns its banner and notices into JSON log lines this way); `undefined` prints
 * lines as they are.
 */
export function setLineShape(next: LineShape | undefined): void {
  currentRun().shape = next;
}

function shaped(run: OutputRun, text: string): string {
  const shapeLine = run.shape;
  return shapeLine === undefined
    ? text
    : text
        .split("\n")
        .map((line) => shapeLine(line))
        .join("\n");
}

/** Registers a secret value revealed in this process, so no output line of any run can carry it. */
export function addOutputSecret(value: string): void {
  secrets.add(value);
}

export function printOut(text: string): void {
  const run = currentRun();
  run.sink.out(`${shaped(run, secrets.scrub(text))}\n`);
}

export function printErr(text: string): void {
  const run = currentRun();
  run.sink.err(`${shaped(run, secrets.scrub(text))}\n`);
}

/** Writes to stderr without a newline (live progress on a TTY). */
export function writeErrRaw(text: string): void {
  currentRun().sink.err(secrets.scrub(text));
}

export function stderrIsTty(): boolean {
  return currentRun().sink.errIsTty();
}

/** The terminal the current run may ask questions at, or undefined when its standard input is not one. */
export function terminalInput(): Terminal | undefined {
  return currentRun().sink.terminal();
}

/** Standard input as text (a run given its own sink reads the sink's). */
export function readStdinText(): string {
  return currentRun().sink.readStdin();
}
