/**
 * The only place in src/ that writes to the terminal. Everything printed passes through here so
 * that the secret redactor can be installed once for all output, and so tests can run the CLI in
 * process by swapping the sink.
 */
import { readFileSync } from "node:fs";
import { Redactor } from "../../executor/redactor.js";

type Scrub = (text: string) => string;
let extra: Scrub = (text) => text;
/** Every declared secret this process has revealed; scrubbed from every line, whatever printed it. */
const secrets = new Redactor();
const scrub: Scrub = (text) => secrets.scrub(extra(text));

/** Where output goes: the process's own streams unless a test installed another sink. */
export interface OutputSink {
  out(text: string): void;
  err(text: string): void;
  errIsTty(): boolean;
  /** All of standard input, for "-" arguments. */
  readStdin(): string;
}

/** Where the process sink sends stderr text: process.stderr (synchronous for files and pipes) unless a server set a writer. */
let stderrWriter: ((text: string) => void) | undefined;

/**
 * Sends the process's stderr text through `write` instead of process.stderr (errand serve's
 * asynchronous writer, asyncWriter.ts); `undefined` goes back to process.stderr. A test's sink is
 * not affected.
 */
export function setStderrWriter(write: ((text: string) => void) | undefined): void {
  stderrWriter = write;
}

const processSink: OutputSink = {
  out: (text) => void process.stdout.write(text),
  err: (text) => (stderrWriter === undefined ? void process.stderr.write(text) : stderrWriter(text)),
  errIsTty: () => process.stderr.isTTY,
  readStdin: () => readFileSync(0, "utf8"),
};
let sink: OutputSink = processSink;

/** Turns one printed line into the log format in force, or leaves it as it is. */
export type LineShape = (line: string) => string;
let shape: LineShape | undefined;

/**
 * Makes every line printed on stdout or stderr pass through `next` (errand serve --log-format json
 * turns its banner and notices into JSON log lines this way); `undefined` prints lines as they are.
 */
export function setLineShape(next: LineShape | undefined): void {
  shape = next;
}

function shaped(text: string): string {
  const shapeLine = shape;
  return shapeLine === undefined ? text : text.split("\n").map((line) => shapeLine(line)).join("\n");
}

/** Installs an additional filter applied to every line written to stdout or stderr. */
export function setOutputScrubber(next: Scrub): void {
  extra = next;
}

/** Registers a secret value revealed in this process, so no output line can carry it. */
export function addOutputSecret(value: string): void {
  secrets.add(value);
}

/** Sends output to `next` (in-process tests); `undefined` restores the process streams and drops any extra scrubber. */
export function setOutputSink(next: OutputSink | undefined): void {
  sink = next ?? processSink;
  extra = (text) => text;
}

export function printOut(text: string): void {
  sink.out(`${shaped(scrub(text))}\n`);
}

export function printErr(text: string): void {
  sink.err(`${shaped(scrub(text))}\n`);
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
