import { Writable } from "node:stream";
import { createInterface } from "node:readline/promises";
import type { Terminal } from "./output.js";

/**
 * The process's own terminal: questions on stderr (stdout stays for results), answers from stdin.
 * An unechoed answer is read through a muted output, so nothing typed reaches the screen or a log.
 */
export const processTerminal: Terminal = {
  async ask(prompt, echo) {
    if (echo) {
      const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
      try {
        return await rl.question(prompt);
      } finally {
        rl.close();
      }
    }
    const muted = new Writable({ write: (_chunk, _encoding, done) => done() });
    const rl = createInterface({ input: process.stdin, output: muted, terminal: true });
    process.stderr.write(prompt);
    try {
      return await rl.question("");
    } finally {
      rl.close();
      process.stderr.write("\n");
    }
  },
};
