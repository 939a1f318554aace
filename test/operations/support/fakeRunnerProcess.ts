// Test-only `errand runner`: the real runner command, with the fake executor instead of a browser.
// The fake hits the loopback fixture server named by FAKE_FIXTURE_ORIGIN, so tests can count what
// really arrived. Usage: node --import tsx fakeRunnerProcess.ts runner [--max N] [--json] ...
import { setTimeout as sleep } from "node:timers/promises";
import { parseCommandArgs } from "../../../src/interfaces/cli/commandContext.js";
import { createRunnerCommand } from "../../../src/interfaces/cli/commands/runner.js";
import type { ExecuteTask } from "../../../src/executor/executeTaskTypes.js";
import { createFakeExecutor } from "./fakeExecutor.js";

const origin = process.env["FAKE_FIXTURE_ORIGIN"];
if (origin === undefined || !origin.startsWith("http://127.0.0.1:")) throw new Error("FAKE_FIXTURE_ORIGIN must name a loopback server");
const delayMs = Number(process.env["FAKE_DELAY_MS"] ?? "0");
const fake = createFakeExecutor({ fixtureOrigin: origin });
const execute: ExecuteTask = async (task, context) => {
  if (delayMs > 0) await sleep(delayMs);
  return fake.execute(task, context);
};

const [name, ...args] = process.argv.slice(2);
if (name !== "runner") throw new Error("only the runner command is faked");
const command = createRunnerCommand(() => ({ execute, shutdown: () => Promise.resolve() }));
process.exitCode = await command.run(parseCommandArgs(command, args, process.env));
