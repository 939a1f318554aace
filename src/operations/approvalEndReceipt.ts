import { readStoredTask } from "../runner/readStoredTask.js";
import { synthesizeReceipt } from "../runner/synthesizeReceipt.js";
import type { BlockedReceiptFactory } from "../store/Store.js";

const MESSAGES = {
  approval_denied: "The owner denied this task; nothing was run. Do not resubmit it unchanged: ask the person what they want instead.",
  approval_expired:
    "Nobody approved this task in time (ERRAND_APPROVAL_TTL); nothing was run. Submit it again under a new operationId if it is still wanted, and ask the owner to approve it.",
} as const;

/** The BLOCKED receipt of an operation that ended while it waited for the owner: no browser was touched. */
export const approvalEndReceipt: BlockedReceiptFactory = (operation, taskJson, code) =>
  synthesizeReceipt({
    operationId: operation.operationId,
    requestDigest: operation.requestDigest,
    task: readStoredTask(taskJson),
    risk: operation.risk,
    end: { kind: "untouched" },
    error: { code, message: MESSAGES[code] },
    attempts: operation.attempts,
    mutationBoundary: operation.mutationBoundary,
    provider: "",
    steps: "skipped",
    startedAt: new Date(operation.createdMs),
  });
