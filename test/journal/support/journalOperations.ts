// The smallest operations the journal tests push through a store by hand: a queued read and the
// resolution that finishes it PASS. Not a test file.
import { randomBytes, randomUUID } from "node:crypto";
import type { NewOperation, OperationRecord } from "../../../src/store/Store.js";
import { sampleReceipt } from "../../support/sampleReceipt.js";

export function newOperation(): NewOperation {
  const operationId = randomUUID();
  const task = {
    schemaVersion: "errand.task.v1",
    operationId,
    risk: "read_only",
    target: { url: "https://example.com/" },
    steps: [{ action: "expect_text", text: "Example" }],
  };
  return {
    operationId,
    requestDigest: `hmac-sha256:${randomBytes(32).toString("hex")}`,
    risk: "read_only",
    maxAttempts: 2,
    taskJson: JSON.stringify(task),
    details: {},
  };
}

/** The resolution that completes a claimed operation with a PASS receipt. */
export function finish(operation: OperationRecord) {
  const { operationId, requestDigest, risk, attempts, mutationBoundary } = operation;
  return {
    kind: "finish" as const,
    phase: "completed" as const,
    receipt: sampleReceipt({ status: "PASS", operationId, requestDigest, risk, attempts, mutationBoundary }),
    reason: "attempt_finished",
  };
}
