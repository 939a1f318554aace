import { emptyNetworkEvidence } from "../receipt/emptyNetworkEvidence.js";
import type { ErrorCode } from "../errors/errorCodes.js";
import type { MutationBoundary, Receipt, ReceiptStatus } from "../receipt/receiptTypes.js";
import type { Task } from "../task/taskTypes.js";

export interface SynthesizedReceiptInput {
  operationId: string;
  requestDigest: string;
  /** The task, when it could be read; receipts for an unreadable task carry the defaults. */
  task: Task | null;
  status: ReceiptStatus;
  error: { code: ErrorCode; message: string } | null;
  attempts: number;
  mutationBoundary: MutationBoundary;
  provider: string;
  /** "skipped" lists every step as not run; "unknown" lists none (an attempt ran, but its record was lost). */
  steps: "skipped" | "unknown";
  startedAt: Date;
}

/**
 * A receipt for an outcome the executor did not produce: cancelled while queued, refused by an open
 * circuit, a lease that ran out without renewal, a stored task that no longer matches its
 * digest. It states only what errand knows: no URL, no checks, no network evidence.
 */
export function synthesizeReceipt(input: SynthesizedReceiptInput): Receipt {
  const task = input.task;
  return {
    receiptVersion: "errand.receipt.v1",
    status: input.status,
    operationId: input.operationId,
    requestDigest: input.requestDigest,
    ...(task?.label === undefined ? {} : { label: task.label }),
    risk: task?.risk ?? "read_only",
    provider: input.provider === "" ? "none" : input.provider,
    finalUrl: null,
    checks: [],
    steps: input.steps === "skipped" && task !== null ? task.steps.map((step, index) => ({ index, action: step.action, status: "skipped", durationMs: 0 })) : [],
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
