// `errand runner` in the test process: the real runner command with the fake executor instead of a
// browser (as fakeRunnerProcess.ts runs it as a child), its output captured. For tests that need the
// queue worked off, not a second process. Not a test file.
import { parseCommandArgs } from "../../../src/interfaces/cli/commandContext.js";
import { createRunnerCommand } from "../../../src/interfaces/cli/commands/runner.js";
import { capturingOutput } from "../../support/errandInProcess.js";
import type { CliRun } from "../../support/errandInProcess.js";
import { createFakeExecutor } from "./fakeExecutor.js";

/** Runs `errand runner ...args` once with exactly `env`; the fake executor reaches `fixtureOrigin` (a loopback server). */
export async function runFakeRunnerInProcess(env: Record<string, string>, fixtureOrigin: string, args: readonly string[] = ["--json"]): Promise<CliRun> {
  const fake = createFakeExecutor({ fixtureOrigin });
  const command = createRunnerCommand(() => ({ execute: fake.execute, shutdown: () => Promise.resolve() }));
  const { value: code, stdout, stderr } = await capturingOutput(() => command.run(parseCommandArgs(command, [...args], env)));
  return { code, stdout, stderr };
}
