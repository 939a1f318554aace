/**
 * The only place in src/ that writes to the terminal. Everything printed passes through here so
 * that the secret redactor can be installed once for all output, and so tests can run the CLI in
 * process by swapping the sink.
 */
import { readFileSync } from "node:fs";

type Scrub = (text: string) => string;
let scrub: Scrub = (text) => text;

/** Where output goes: the process's own streams unless a test installed another sink. */
export interface OutputSink {
  out(text: string): void;
  err(text: string): void;
  errIsTty(): boolean;
  /** All of standard input, for "-" arguments. */
  readStdin(): string;
}

const processSink: OutputSink = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  errIsTty: () => process.stderr.isTTY,
  readStdin: () => readFileSync(0, "utf8"),
};
let sink: OutputSink = processSink;

/** Installs a filter applied to every line written to stdout or stderr. */
export function setOutputScrubber(next: Scrub): void {
  scrub = next;
}

/** Sends output to `next` (in-process tests); `undefined` restores the process streams and drops any scrubber. */
export function setOutputSink(next: OutputSink | undefined): void {
  sink = next ?? processSink;
  scrub = (text) => text;
}

export function printOut(text: string): void {
  sink.out(`${scrub(text)}\n`);
}

export function printErr(text: string): void {
  sink.err(`${scrub(text)}\n`);
}

/** Writes to stderr without a newline (live progress on a TTY). */
export function writeErrRaw(text: string): void {
  sink.err(scrub(text));
}

export function stderrIsTty(): boolean {
  return sink.errIsTty();
}

/** Standard input as text (a test's sink supplies its own). */
export function readStdinText(): string {
  return sink.readStdin();
}
