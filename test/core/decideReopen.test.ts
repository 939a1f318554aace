// Reopening a blocked operation without a database: core/decideReopen transitions only an operation
// still blocked at the revision the caller judged.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";
import { decideReopen } from "../../src/core/decideReopen.js";
import type { OperationRecord } from "../../src/core/operationRecord.js";
import { claim, create, resolve } from "../../src/core/operationTransitions.js";
import { sampleReceipt } from "../support/sampleReceipt.js";

const T0 = Date.UTC(2026, 0, 1);

function blocked(): OperationRecord {
  const queued = create(
    { operationId: randomUUID(), requestDigest: "hmac-sha256:ab", risk: "read_only", maxAttempts: 1, taskJson: "{}", details: {} },
    T0,
  ).next;
  const running = claim(queued, T0 + 1, { runnerId: "r", leaseMs: 1000 }).next;
  return resolve(running, T0 + 2, { kind: "finish", phase: "blocked", receipt: sampleReceipt({ status: "BLOCKED" }), reason: "provider_unavailable" }).next;
}

describe("core decideReopen", () => {
  test("still blocked at the judged revision: queued again with extraAttempts more attempts", () => {
    const op = blocked();
    const transition = decideReopen(op, op.revision, T0 + 10, 1, "environment_refusal");
    assert.ok(transition !== undefined);
    assert.deepEqual(
      [transition.next.phase, transition.next.maxAttempts, transition.next.receiptStatus, transition.event.type],
      ["queued", op.attempts + 1, null, "operation_reopened"],
    );
  });

  test("no live row, another revision, or no longer blocked: nothing (a concurrent change wins)", () => {
    const op = blocked();
    assert.equal(decideReopen(undefined, 1, T0, 1, "r"), undefined);
    assert.equal(decideReopen(op, op.revision - 1, T0, 1, "r"), undefined);
    assert.equal(decideReopen({ ...op, phase: "queued" }, op.revision, T0, 1, "r"), undefined);
  });
});
