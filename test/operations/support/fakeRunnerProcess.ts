// Test-only `errand runner`: the real runner command, with the fake executor instead of a browser.
// The fake hits the fixture server named by FAKE_FIXTURE_ORIGIN (on loopback, or through a relay on
// the host side of a test network namespace's link, 10.0.0.0/8), so tests can count what really
// arrived. FAKE_DELAY_MS waits before each attempt; FAKE_LINGER_MS holds each finished attempt's
// outcome that long before handing it to the runner, and then says so on stderr ("fake attempt
// returned ID"), so a test can cut the network in between. The first stderr line is the process's
// own Date.now() ("fake runner clock MS"), so a test can check that a skewed clock really took.
// Usage: node --import tsx fakeRunnerProcess.ts runner [--max N] [--json] ...
import { setTimeout as sleep } from "node:timers/promises";
import { parseCommandArgs } from "../../../src/interfaces/cli/commandContext.js";
import { createRunnerCommand } from "../../../src/interfaces/cli/commands/runner.js";
import type { ExecuteTask } from "../../../src/executor/executeTaskTypes.js";
import { createFakeExecutor } from "./fakeExecutor.js";

const origin = process.env["FAKE_FIXTURE_ORIGIN"];
if (origin === undefined || !/^http:\/\/(127\.0\.0\.1|10\.\d{1,3}\.\d{1,3}\.\d{1,3}):\d+$/.test(origin))
  throw new Error("FAKE_FIXTURE_ORIGIN must name a loopback server or a test namespace's relay (10.0.0.0/8)");
process.stderr.write(`fake runner clock ${Date.now()}\n`);
const delayMs = Number(process.env["FAKE_DELAY_MS"] ?? "0");
const lingerMs = Number(process.env["FAKE_LINGER_MS"] ?? "0");
const fake = createFakeExecutor({ fixtureOrigin: origin });
const execute: ExecuteTask = async (task, context) => {
  if (delayMs > 0) await sleep(delayMs);
  const outcome = await fake.execute(task, context);
  if (lingerMs > 0) {
    await sleep(lingerMs);
    process.stderr.write(`fake attempt returned ${task.operationId}\n`);
  }
  return outcome;
};

const [name, ...args] = process.argv.slice(2);
if (name !== "runner") throw new Error("only the runner command is faked");
const command = createRunnerCommand(() => ({ execute, shutdown: () => Promise.resolve() }));
process.exitCode = await command.run(parseCommandArgs(command, args, process.env));
