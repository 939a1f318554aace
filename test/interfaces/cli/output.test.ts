// The CLI's output layer: a run given its own sink gets exactly its own lines, however runs in
// flight at once interleave, and a revealed value is scrubbed from every run's output.
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, test } from "node:test";
import {
  addOutputSecret,
  printErr,
  printOut,
  readStdinText,
  setLineShape,
  setStderrWriter,
  stderrIsTty,
  withOutputSink,
} from "../../../src/interfaces/cli/output.js";
import { capturedOutput, capturingOutput } from "../../support/errandInProcess.js";

describe("output", () => {
  test("two runs in flight at once each get only their own lines, also those printed after an await", async () => {
    const a = capturedOutput("stdin of a");
    const b = capturedOutput("stdin of b");
    const run = (name: string, delays: number[]) => async () => {
      for (const [index, delay] of delays.entries()) {
        await sleep(delay);
        printOut(`${name} out ${index}`);
        printErr(`${name} err ${index}`);
      }
      return readStdinText();
    };
    const [stdinA, stdinB] = await Promise.all([withOutputSink(a.sink, run("a", [5, 0, 10])), withOutputSink(b.sink, run("b", [0, 10, 0]))]);
    assert.equal(a.stdout(), "a out 0\na out 1\na out 2\n");
    assert.equal(a.stderr(), "a err 0\na err 1\na err 2\n");
    assert.equal(b.stdout(), "b out 0\nb out 1\nb out 2\n");
    assert.equal(b.stderr(), "b err 0\nb err 1\nb err 2\n");
    assert.deepEqual([stdinA, stdinB], ["stdin of a", "stdin of b"]);
  });

  test("a value revealed in one run is scrubbed from that run, from a run in flight beside it and from every later run", async () => {
    const secret = "run-secret-value-4711";
    const other = capturedOutput();
    let revealed!: () => void;
    const revealedYet = new Promise<void>((resolve) => (revealed = resolve));
    const beside = withOutputSink(other.sink, async () => {
      await revealedYet;
      printOut(`beside: ${secret}`);
      printErr(`beside err: ${secret}`);
    });
    const own = await capturingOutput(() => {
      addOutputSecret(secret);
      revealed();
      printOut(`own: ${secret}`);
      printErr(`own err: ${secret.toUpperCase()}`);
    });
    await beside;
    const later = await capturingOutput(() => printOut(`later: ${secret}`));
    for (const text of [own.stdout, own.stderr, other.stdout(), other.stderr(), later.stdout]) {
      assert.doesNotMatch(text, /run-secret-value-4711/i);
      assert.match(text, /\[REDACTED\]/);
    }
  });

  test("a line shape or stderr writer set inside a run applies to that run only, and a run's sink says whether stderr is a terminal", async () => {
    const shapedRun = capturedOutput();
    const plainRun = capturedOutput();
    const diverted: string[] = [];
    await Promise.all([
      withOutputSink(shapedRun.sink, async () => {
        setLineShape((line) => (line === "" ? line : `{"msg":${JSON.stringify(line)}}`));
        setStderrWriter((text) => void diverted.push(text));
        await sleep(5);
        printOut("shaped");
        printErr("shaped err");
        assert.equal(stderrIsTty(), false);
      }),
      withOutputSink(plainRun.sink, async () => {
        await sleep(1);
        printOut("plain");
      }),
    ]);
    assert.equal(shapedRun.stdout(), '{"msg":"shaped"}\n');
    assert.equal(shapedRun.stderr(), '{"msg":"shaped err"}\n', "a run's own sink still gets its stderr");
    assert.equal(plainRun.stdout(), "plain\n");
    assert.deepEqual(diverted, []);
  });
});
