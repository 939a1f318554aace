import type { Problem } from "../../../errors/result.js";
import { parseTaskText } from "../../../task/parseTaskText.js";
import { EXIT } from "../exitCodes.js";
import { printEnvelope } from "../jsonEnvelope.js";
import { printErr, printOut } from "../output.js";
import { readInputText } from "../readInput.js";
import { flagOption } from "../commandContext.js";
import type { Command, CommandContext } from "../commandContext.js";

export const validateCommand: Command = {
  name: "validate",
  summary: "check a task and print its normalized form",
  options: { json: { type: "boolean" } },
  maxPositionals: 1,
  run: runValidate,
  help: `errand validate <file|-> [--json]
  Checks a task against schema errand.task.v1 and prints the normalized task.
  Every problem is reported in one run, each with its JSON Pointer. --json: data.task (docs/CLI.md).
  Exit 0 when valid, 2 with one line per problem when not.`,
};

export function runValidate(ctx: CommandContext): number {
  const result = parseTaskText(readInputText(ctx.positionals[0]));
  if (flagOption(ctx, "json")) {
    if (result.ok) printEnvelope({ ok: true, status: "valid", operationId: result.value.operationId, data: { task: result.value } });
    else printEnvelope({ ok: false, status: "invalid", error: problemsError(result.errors) });
  } else if (result.ok) {
    printOut(JSON.stringify(result.value, null, 2));
  } else {
    printProblems(result.errors);
  }
  return result.ok ? EXIT.pass : EXIT.usage;
}

/** The envelope's error for a task with problems: the first problem's code, and every problem. */
export function problemsError(problems: readonly Problem[]): { code: string; message: string; problems: readonly Problem[] } {
  return {
    code: problems[0]?.code ?? "invalid_type",
    message: `The task has ${problems.length} problem${problems.length === 1 ? "" : "s"}; each is listed with its JSON Pointer.`,
    problems,
  };
}

/** One line per problem: where, what, and the code for scripts. */
export function printProblems(problems: readonly Problem[]): void {
  for (const problem of problems) {
    printErr(`error ${problem.path === "" ? "(task)" : problem.path}: ${problem.message} [${problem.code}]`);
  }
}
