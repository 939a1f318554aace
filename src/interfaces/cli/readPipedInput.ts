import { readStdinText } from "./output.js";

/**
 * Reads all of standard input (piped) and drops exactly one trailing newline. Through the output
 * module's sink, as `-` task files are read, so in-process runs of the CLI can hand it their input.
 */
export function readPiped(): Promise<string> {
  return Promise.resolve(readStdinText().replace(/\r?\n$/, ""));
}
