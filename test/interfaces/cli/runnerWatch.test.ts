// errand runner --watch --concurrency N: the worker pool without the HTTP server, in process with a
// fake executor that counts how many attempts run at once.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, test } from "node:test";
import { parseCommandArgs } from "../../../src/interfaces/cli/commandContext.js";
import { createRunnerCommand } from "../../../src/interfaces/cli/commands/runner.js";
import type { ExecuteTask } from "../../../src/executor/executeTaskTypes.js";
import { createFakeExecutor } from "../../operations/support/fakeExecutor.js";
import { openHarness } from "../../operations/support/harness.js";
import { readTask } from "../../operations/support/tasks.js";
import { capturingOutput } from "../../support/errandInProcess.js";

describe("errand runner --watch", () => {
  test("runs queued work with --concurrency attempts at once until --budget-ms passes, and reports every attempt", async () => {
    const h = await openHarness();
    const fake = createFakeExecutor();
    let running = 0;
    let most = 0;
    const execute: ExecuteTask = async (task, context) => {
      running += 1;
      most = Math.max(most, running);
      await sleep(300);
      running -= 1;
      return fake.execute(task, context);
    };
    const ids = [0, 1, 2].map(() => randomUUID());
    for (const id of ids) await h.service.submit(readTask(id));
    const command = createRunnerCommand(() => ({ execute, shutdown: () => Promise.resolve() }));
    const { value: code, stdout } = await capturingOutput(() =>
      command.run(
        parseCommandArgs(command, ["--watch", "--concurrency", "3", "--budget-ms", "3000", "--json"], { ERRAND_HOME: h.home, PATH: process.env["PATH"] ?? "" }),
      ),
    );
    try {
      assert.equal(code, 0);
      const envelope = JSON.parse(stdout) as { status: string; data: { attempts: { operationId: string; outcome: string; status: string | null }[] } };
      assert.equal(envelope.status, "budget");
      assert.deepEqual(envelope.data.attempts.map((a) => a.operationId).sort(), [...ids].sort());
      assert.ok(envelope.data.attempts.every((a) => a.outcome === "finished" && a.status === "PASS"));
      assert.equal(most, 3, "all three ran at once");
      for (const id of ids) {
        const collected = await h.service.collect(id);
        assert.ok(collected.ok && collected.receipt?.status === "PASS");
      }
    } finally {
      await h.close();
    }
  });

  test("--concurrency needs --watch, and --max is not used with --watch", async () => {
    const command = createRunnerCommand(() => ({ execute: createFakeExecutor().execute, shutdown: () => Promise.resolve() }));
    await assert.rejects(async () => command.run(parseCommandArgs(command, ["--concurrency", "2"], {})), /--concurrency applies to --watch/);
    await assert.rejects(async () => command.run(parseCommandArgs(command, ["--watch", "--max", "2"], {})), /--max is not used with --watch/);
  });
});
