import type { ExecuteTask } from "../executor/executeTaskTypes.js";
import type { ProgramExecutor } from "../executor/createProgramExecutor.js";
import type { BrowserProvider } from "../providers/providerTypes.js";
import type { ProviderMode } from "./providerModes.js";

export interface ProgramModeOptions {
  /** The operator's mode for this provider (ERRAND_MODE_<PROVIDER>). */
  mode: ProviderMode;
  provider: BrowserProvider;
  /** CDP mode's executor on the same provider: every task program mode does not take. */
  cdp: ExecuteTask;
  /** Program mode's executor on the same provider, or null when it has no program runner. */
  program: ProgramExecutor | null;
}

/**
 * The one place a task is sent to program mode. It goes there only when all of these hold; in any
 * other case it runs in CDP mode on the same provider, which is never less safe:
 * 1. the operator chose program mode for this provider (cdp is the default);
 * 2. the provider has a program runner (programDialect and runProgram);
 * 3. the router admitted the task (its admission travels with the attempt);
 * 4. the generator accepts the task (no secret, site, upload, frame, new tab, screenshot, only
 *    plain CSS) and every URL it carries passed errand's network preflight, none through an
 *    operator allowance by name (prepareProgram: only errand's egress proxy holds those).
 * The choice is made before anything is sent, so a task never runs in both modes.
 */
export function withProgramMode(options: ProgramModeOptions): ExecuteTask {
  const { program, provider, cdp } = options;
  if (options.mode !== "program" || program === null || provider.programDialect === undefined || provider.runProgram === undefined) return cdp;
  return async (task, context) => {
    const admitted = context.admitted;
    if (admitted === undefined || !admitted.admitted) return cdp(task, context);
    const prepared = await program.prepare(task, admitted);
    if (!prepared.ok) {
      context.onProgress?.({ kind: "note", message: `${provider.name}: CDP mode for this task (${prepared.reason})` });
      return cdp(task, context);
    }
    context.onProgress?.({ kind: "note", message: `${provider.name}: program mode (the whole task as one program)` });
    return program.run(task, context, prepared);
  };
}
