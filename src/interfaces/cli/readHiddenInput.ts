import { Writable } from "node:stream";
import { createInterface } from "node:readline/promises";
import { readStdinText } from "./output.js";

/** Reads one line from the terminal without echoing it (the prompt goes to stderr). */
export async function readHidden(prompt: string): Promise<string> {
  const muted = new Writable({ write: (_chunk, _encoding, done) => done() });
  const rl = createInterface({ input: process.stdin, output: muted, terminal: true });
  process.stderr.write(prompt);
  try {
    return await rl.question("");
  } finally {
    rl.close();
    process.stderr.write("\n");
  }
}

/**
 * Reads all of standard input (piped) and drops exactly one trailing newline. Through the output
 * module's sink, as `-` task files are read, so in-process runs of the CLI can hand it their input.
 */
export function readPiped(): Promise<string> {
  return Promise.resolve(readStdinText().replace(/\r?\n$/, ""));
}
