import { generateProgram } from "../program/generateProgram.js";
import type { ProgramDefaults } from "../program/generateProgram.js";
import type { GeneratedProgram, ProgramDialectName } from "../program/programTypes.js";
import type { Task } from "../task/taskTypes.js";
import type { AdmittedTask, TargetVerdict } from "./admitTask.js";

/** A task ready to go as one program: the program, and the preflight verdicts of every URL in it. */
export type PreparedProgram = { ok: true; program: GeneratedProgram; preflight: TargetVerdict[] } | { ok: false; reason: string };

/** Every URL a task names besides its target (the admission step preflighted that one). */
function stepUrls(task: Task): string[] {
  return task.steps.flatMap((step) => {
    if (step.action === "goto" || step.action === "expect_url") return [step.url];
    if (step.action === "wait_for" && "url" in step) return [step.url];
    return [];
  });
}

/**
 * Whether an admitted task can run as one program, and the program when it can. No URL goes into a
 * program before errand's own network preflight (layer 1, with DNS) allowed it: the admission step
 * checked the target; every goto, wait_for and expect_url address is checked here, and one refusal
 * keeps the whole task out of program mode (CDP mode checks and refuses it at its step).
 *
 * A destination the operator allowed by name (a private address reached through a host name) stays
 * in CDP mode: only errand's egress proxy checks, at connect time, that the name still resolves to
 * the allowed address, and a program has no such proxy. An allowance on an address literal cannot
 * be moved by DNS, so it may go.
 */
export async function prepareProgram(
  task: Task,
  admitted: AdmittedTask,
  defaults: ProgramDefaults,
  dialect: ProgramDialectName = "browserless_function",
): Promise<PreparedProgram> {
  // The browser goes first where the preflight allowed it, exactly as CDP mode does.
  const generated = generateProgram({ ...task, target: { ...task.target, url: admitted.targetHref } }, defaults, dialect);
  if (!generated.ok) return { ok: false, reason: `${generated.refusal.message} (${generated.refusal.path || "/"})` };
  const preflight: TargetVerdict[] = [...admitted.preflight];
  for (const url of [...new Set(stepUrls(task))]) {
    const verdict = await admitted.guard.preflight(url);
    if (verdict.verdict === "block" || verdict.href === null)
      return { ok: false, reason: `a step's address was refused by the network preflight (${verdict.code}); CDP mode refuses it at its step` };
    preflight.push(verdict);
  }
  for (const verdict of preflight) {
    const allowance = verdict.addresses.some((address) => address.verdict.startsWith("allowed:"));
    // An address literal is checked without a resolver: no later DNS answer can move it.
    if (allowance && verdict.resolver !== "literal") {
      return {
        ok: false,
        reason: `${verdict.host} is reached through an operator allowance by name, which only errand's egress proxy holds to the allowed address`,
      };
    }
  }
  return { ok: true, program: generated.value, preflight: preflight.slice(admitted.preflight.length) };
}
