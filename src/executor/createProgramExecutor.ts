import type { ErrorCode } from "../errors/errorCodes.js";
import { evidenceByteBound } from "../program/evidenceByteBound.js";
import { parseProgramEvidence } from "../program/parseProgramEvidence.js";
import type { ProgramAnswer } from "../providers/programRun.js";
import { ProgramRunError } from "../providers/programRun.js";
import type { BrowserProvider } from "../providers/providerTypes.js";
import { ProviderError } from "../providers/providerTypes.js";
import { untrusted } from "../receipt/untrustedText.js";
import type { Task } from "../task/taskTypes.js";
import type { AdmissionPorts, AdmittedTask, Refusal } from "./admitTask.js";
import { admitTask } from "./admitTask.js";
import { AttemptState } from "./attemptState.js";
import { buildReceipt } from "./buildReceipt.js";
import type { AttemptContext, AttemptOutcome, ExecuteTask } from "./executeTaskTypes.js";
import type { PreparedProgram } from "./prepareProgram.js";
import { prepareProgram } from "./prepareProgram.js";
import { recordProgramEvidence } from "./recordProgramEvidence.js";
import { refusalOutcome } from "./refusalOutcome.js";
import { firstLine } from "./stepFailure.js";

export interface ProgramExecutorOptions extends AdmissionPorts {
  /** A provider with a program runner (programDialect and runProgram). */
  provider: BrowserProvider;
  /** Whole-task time when the task sets no timeouts.taskMs (ms). */
  defaultTaskTimeoutMs: number;
  /** Per-step time when neither the step nor the task sets one (ms). */
  defaultStepTimeoutMs: number;
}

/** Program mode's executor: `prepare` says whether a task can go as one program; `run` sends it. */
export interface ProgramExecutor {
  prepare(task: Task, admitted: AdmittedTask): Promise<PreparedProgram>;
  run(task: Task, context: AttemptContext, prepared?: PreparedProgram): Promise<AttemptOutcome>;
  /** Prepares and runs in one call, refusing a task program mode cannot hold (the executor without the router). */
  execute: ExecuteTask;
}

/** Provider failures that refuse the attempt before anything ran (the receipt is BLOCKED). */
const REFUSING_CODES = new Set<ErrorCode>(["configuration_error", "provider_unconfigured", "provider_auth_failed", "provider_capacity"]);

/**
 * Runs an admitted task as one program on the provider's own runner (Browserless /function, Kernel
 * execute): one request carrying errand's fixed code and the task's values as data, instead of a
 * CDP socket. Its answer is read only through the evidence schema (parseProgramEvidence); anything
 * malformed, oversized or missing is a provider failure, never a PASS. The receipt comes from the
 * same builder and status rule as CDP mode's (buildReceipt, decideStatus).
 *
 * A write crosses its mutation boundary when its program is sent: the runner records that durably
 * first (beforeMutationBoundary, called by the adapter right before the send, after any browser it
 * had to create), because nothing calls back between the program's steps. A program
 * that may have run and did not answer (a timeout, a reset, a 5xx, an unreadable answer) leaves the
 * write UNCERTAIN; it is sent once and never again by this executor.
 */
export function createProgramExecutor(options: ProgramExecutorOptions): ProgramExecutor {
  const defaults = { taskMs: options.defaultTaskTimeoutMs, stepMs: options.defaultStepTimeoutMs };
  const prepare = (task: Task, admitted: AdmittedTask) => prepareProgram(task, admitted, defaults, options.provider.programDialect);

  const run = async (task: Task, context: AttemptContext, given?: PreparedProgram): Promise<AttemptOutcome> => {
    const startedAt = new Date();
    const { provider } = options;
    const admission = context.admitted ?? (await admitTask(task, options));
    const refuse = (refusal: Refusal, preflight = admission.preflight): AttemptOutcome =>
      refusalOutcome({
        task,
        requestDigest: context.requestDigest,
        attempt: context.attempt,
        provider: provider.name,
        startedAt,
        refusal,
        preflight,
        redactor: admission.redactor,
      });
    if (!admission.admitted) return refuse(admission.refusal);
    const missing = provider.missingConfiguration();
    if (missing !== null) return refuse({ code: "provider_unconfigured", message: missing });
    if (provider.runProgram === undefined)
      return refuse({ code: "configuration_error", message: `${provider.name} has no program runner; its tasks run in CDP mode.` });
    const prepared = given ?? (await prepare(task, admission));
    if (!prepared.ok) return refuse({ code: "configuration_error", message: `This task cannot run in program mode: ${prepared.reason}.` });
    const { program } = prepared;
    const { redactor } = admission;
    const state = new AttemptState();
    state.network.preflight.push(...admission.preflight, ...prepared.preflight);
    const write = task.risk !== "read_only";
    const finish = (sessionId?: string): AttemptOutcome =>
      buildReceipt(
        {
          task,
          requestDigest: context.requestDigest,
          attempt: context.attempt,
          provider: provider.name,
          finalUrl: state.lastUrl === null || state.lastUrl === "" ? null : redactor.scrub(state.lastUrl),
          startedAt,
          durationMs: Date.now() - startedAt.getTime(),
          ...(sessionId === undefined ? {} : { sessionId }),
        },
        state,
        redactor,
      );

    const skipAll = () => state.steps.push(...task.steps.map((step, index) => ({ index, action: step.action, status: "skipped" as const, durationMs: 0 })));
    const stopped = (): AttemptOutcome => {
      skipAll();
      state.error = { code: "cancelled", message: "The operation was stopped before its program was sent; nothing ran.", step: null };
      return finish();
    };
    if (context.signal.aborted) return stopped();
    // Called by the adapter right before the program itself leaves (after any browser it had to
    // create): a write's boundary is recorded durably there, since the program crosses it on its
    // own with no call back. Nothing is sent when this throws (a cancel, a lost lease).
    let sent = false;
    let stoppedBeforeSend = false;
    const beforeSend = async () => {
      if (write) {
        try {
          await context.beforeMutationBoundary();
        } catch (error) {
          stoppedBeforeSend = true;
          throw error;
        }
        state.mutationBoundary = "crossed";
      }
      sent = true;
    };
    const taskMs = program.params.taskMs;
    let answer: ProgramAnswer;
    try {
      answer = await provider.runProgram({
        code: program.code,
        params: program.params,
        budgetMs: taskMs,
        signal: context.signal,
        maxAnswerBytes: evidenceByteBound(program.params),
        beforeSend,
      });
    } catch (error) {
      if (stoppedBeforeSend) return stopped();
      const failure =
        error instanceof ProviderError
          ? error
          : new ProviderError("provider_unavailable", `${provider.name} failed while running the program: ${firstLine(error)}`);
      // Before the send nothing of the program ran, whatever the provider's error says.
      const ran = sent && (failure instanceof ProgramRunError ? failure.mayHaveRun : true);
      const quoted = failure.quoted === undefined ? {} : { detail: untrusted(redactor.scrub(failure.quoted)) };
      if (!ran && REFUSING_CODES.has(failure.code))
        return refuse({ code: failure.code, message: redactor.scrub(failure.message), ...(failure.quoted === undefined ? {} : { detail: failure.quoted }) }, [
          ...admission.preflight,
          ...prepared.preflight,
        ]);
      skipAll();
      if (context.signal.aborted) {
        state.error = {
          code: "cancelled",
          message: `The operation was cancelled while its program ran on ${provider.name}; what it did before then is unknown.`,
          step: null,
        };
      } else {
        const unknown = ran ? " The program may have run some or all of its steps; what it did is unknown." : "";
        state.error = { code: ran ? "provider_unavailable" : failure.code, message: `${redactor.scrub(failure.message)}${unknown}`, step: null, ...quoted };
      }
      return finish();
    }
    const parsed = parseProgramEvidence(answer.value, program.params);
    if (!parsed.ok) {
      skipAll();
      state.error = {
        code: "provider_unavailable",
        message: `${provider.name} answered the program with evidence errand refuses (${parsed.path || "/"} ${parsed.message}); what the program did is unknown.`,
        step: null,
      };
      return finish(answer.sessionId);
    }
    recordProgramEvidence(task, parsed.value, state, redactor);
    return finish(answer.sessionId);
  };

  return {
    prepare,
    run,
    execute: (task, context) => run(task, context),
  };
}
