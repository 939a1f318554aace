/**
 * The only place in src/ that writes to the terminal. Everything printed passes through here so
 * that the secret redactor can be installed once for all output.
 */
type Scrub = (text: string) => string;
let scrub: Scrub = (text) => text;

/** Installs a filter applied to every line written to stdout or stderr. */
export function setOutputScrubber(next: Scrub): void {
  scrub = next;
}

export function printOut(text: string): void {
  process.stdout.write(`${scrub(text)}\n`);
}

export function printErr(text: string): void {
  process.stderr.write(`${scrub(text)}\n`);
}

/** Writes to stderr without a newline (live progress on a TTY). */
export function writeErrRaw(text: string): void {
  process.stderr.write(scrub(text));
}

export function stderrIsTty(): boolean {
  return process.stderr.isTTY;
}
