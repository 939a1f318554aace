// A deterministic stand-in for the browser executor, driven by the task's label. Not a test file.
import type { AttemptContext, AttemptOutcome, ExecuteTask } from "../../../src/executor/executeTaskTypes.js";
import { emptyNetworkEvidence } from "../../../src/receipt/emptyNetworkEvidence.js";
import { untrusted, untrustedValues } from "../../../src/receipt/untrustedText.js";
import type { ErrorCode } from "../../../src/errors/errorCodes.js";
import type { Receipt, ReceiptStatus } from "../../../src/receipt/receiptTypes.js";
import type { Task } from "../../../src/task/taskTypes.js";

export interface FakeCall {
  operationId: string;
  attempt: number;
  label: string | undefined;
}

export interface FakeExecutor {
  execute: ExecuteTask;
  calls: FakeCall[];
}

export interface FakeOptions {
  /** When set, read tasks GET <origin>/read/<id> and writes POST <origin>/write/<id> after their boundary. */
  fixtureOrigin?: string;
  /** For "config-once": whether errand's environment is fixed now (then the task runs). Default: never. */
  configFixed?: () => boolean;
  /** Provider name written into receipts. Default "local". */
  provider?: string;
}

/**
 * Behaviours by label: (none)/"pass" PASS; "fail" FAIL expectation_failed; "fail-once" step_failed on
 * attempt 1 then PASS; "partial" PARTIAL; "provider-down" FAIL provider_unavailable; "config" BLOCKED configuration_error;
 * "config-once" BLOCKED configuration_error until options.configFixed() says the environment is fixed, then PASS;
 * "task-refused" BLOCKED secret_unknown (a refusal caused by the task); "hang" waits for the abort signal (first attempt only with "hang-once"); "extract" PASS with an
 * extracted value; "throw" throws. Write tasks cross their boundary first, except "write-fail-before".
 * "write-hang" crosses the boundary, sends its write, then waits for the abort signal.
 */
export function createFakeExecutor(options: FakeOptions = {}): FakeExecutor {
  const calls: FakeCall[] = [];
  const execute: ExecuteTask = async (task, context) => {
    calls.push({ operationId: task.operationId, attempt: context.attempt, label: task.label });
    const label = task.label ?? "pass";
    const write = task.risk !== "read_only";
    let boundary: Receipt["mutationBoundary"] = "not_crossed";
    const done = (status: ReceiptStatus, code: ErrorCode | null = null, outputs: Record<string, string> = {}): AttemptOutcome =>
      outcome(task, context, status, code, boundary, outputs, options.provider ?? "local");

    if (label === "throw") throw new Error("fake executor exploded");
    // Refusals before any browser: no page reached, every step skipped.
    const refuse = (code: ErrorCode): AttemptOutcome => {
      const refused = done("BLOCKED", code);
      return {
        ...refused,
        receipt: { ...refused.receipt, finalUrl: null, steps: refused.receipt.steps.map((step) => ({ ...step, status: "skipped", durationMs: 0 })) },
      };
    };
    if (label === "config" || (label === "config-once" && (options.configFixed?.() ?? false) === false)) return refuse("configuration_error");
    if (label === "task-refused") return refuse("secret_unknown");
    if (write && label !== "write-fail-before") {
      try {
        await context.beforeMutationBoundary();
      } catch {
        return done("CANCELLED", "cancelled");
      }
      boundary = "crossed";
      if (options.fixtureOrigin !== undefined) await fetch(`${options.fixtureOrigin}/write/${task.operationId}`, { method: "POST", body: "x" });
    } else if (options.fixtureOrigin !== undefined) {
      await fetch(`${options.fixtureOrigin}/read/${task.operationId}`);
    }
    if (label === "hang" || label === "write-hang" || (label === "hang-once" && context.attempt === 1)) {
      await new Promise<void>((resolve) => {
        if (context.signal.aborted) resolve();
        context.signal.addEventListener("abort", () => resolve(), { once: true });
      });
      return done("FAIL", "cancelled");
    }
    switch (label) {
      case "fail":
        return done("FAIL", "expectation_failed");
      case "fail-once":
        return context.attempt === 1 ? done("FAIL", "step_failed") : done("PASS");
      case "partial":
        return done("PARTIAL");
      case "provider-down":
        return done("FAIL", "provider_unavailable");
      case "write-fail-before":
      case "write-fail-after":
        return done("FAIL", "step_failed");
      case "extract":
        return done("PASS", null, { title: "Example Domain" });
      default:
        return done("PASS");
    }
  };
  return { execute, calls };
}

function outcome(
  task: Task,
  context: AttemptContext,
  status: ReceiptStatus,
  code: ErrorCode | null,
  boundary: Receipt["mutationBoundary"],
  outputs: Record<string, string>,
  provider: string,
): AttemptOutcome {
  const receipt: Receipt = {
    receiptVersion: "errand.receipt.v1",
    status,
    operationId: task.operationId,
    requestDigest: context.requestDigest,
    ...(task.label === undefined ? {} : { label: task.label }),
    risk: task.risk,
    provider,
    finalUrl: untrusted(task.target.url),
    // As the executor's would: a PASS has a check that held, an expectation that failed one that did not.
    checks:
      status === "PASS" || code === "expectation_failed"
        ? [{ step: task.steps.length - 1, action: "expect_text", expected: "fake", match: "contains", passed: status === "PASS" }]
        : [],
    steps: task.steps.map((step, index) => ({ index, action: step.action, status: "ok", durationMs: 1 })),
    error: code === null ? null : { code, message: `fake ${code}`, step: null },
    startedAt: "2026-01-01T00:00:00.000Z",
    durationMs: 1,
    attempts: context.attempt,
    network: emptyNetworkEvidence(),
    mutationBoundary: boundary,
    evidenceRetention: task.evidenceRetention,
    fallback: [],
    ...(task.evidenceRetention === "full" && Object.keys(outputs).length > 0 ? { outputs: untrustedValues(outputs) } : {}),
  };
  return { receipt, ephemeral: { ephemeral: true, outputs } };
}
