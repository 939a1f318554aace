import { emptyNetworkEvidence } from "../receipt/emptyNetworkEvidence.js";
import type { ErrorCode } from "../errors/errorCodes.js";
import { decideStatus } from "../receipt/decideStatus.js";
import type { AttemptEnd } from "../receipt/decideStatus.js";
import type { MutationBoundary, Receipt } from "../receipt/receiptTypes.js";
import type { Risk, Task } from "../task/taskTypes.js";

export interface SynthesizedReceiptInput {
  operationId: string;
  requestDigest: string;
  /** The task, when it could be read; receipts for an unreadable task carry the defaults. */
  task: Task | null;
  /** The operation's risk, as the store holds it (the task may be unreadable). */
  risk: Risk;
  /** How it ended: its status is decided from this, the risk and the boundary. */
  end: AttemptEnd;
  error: { code: ErrorCode; message: string } | null;
  attempts: number;
  mutationBoundary: MutationBoundary;
  provider: string;
  /** "skipped" lists every step as not run; "unknown" lists none (an attempt ran, but its record was lost). */
  steps: "skipped" | "unknown";
  startedAt: Date;
}

/**
 * A receipt for an outcome the executor did not produce: cancelled while queued, ended while it
 * waited for the owner, a lease that ran out without renewal, a stored task that no longer matches
 * its digest, an executor that threw. It states only what errand knows: no URL, no checks, no network evidence.
 */
export function synthesizeReceipt(input: SynthesizedReceiptInput): Receipt {
  const task = input.task;
  return {
    receiptVersion: "errand.receipt.v1",
    status: decideStatus({ write: input.risk !== "read_only", crossed: input.mutationBoundary === "crossed", end: input.end }),
    operationId: input.operationId,
    requestDigest: input.requestDigest,
    ...(task?.label === undefined ? {} : { label: task.label }),
    risk: input.risk,
    provider: input.provider === "" ? "none" : input.provider,
    finalUrl: null,
    checks: [],
    steps:
      input.steps === "skipped" && task !== null ? task.steps.map((step, index) => ({ index, action: step.action, status: "skipped", durationMs: 0 })) : [],
    error: input.error === null ? null : { ...input.error, step: null },
    startedAt: input.startedAt.toISOString(),
    durationMs: 0,
    attempts: input.attempts,
    network: emptyNetworkEvidence(),
    mutationBoundary: input.mutationBoundary,
    evidenceRetention: task?.evidenceRetention ?? "minimal",
    fallback: [],
  };
}
