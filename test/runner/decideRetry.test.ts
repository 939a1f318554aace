// decideRetry: the one rule for whether a failed attempt runs again.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ErrorCode } from "../../src/errors/errorCodes.js";
import type { ReceiptStatus } from "../../src/receipt/receiptTypes.js";
import { decideRetry } from "../../src/runner/decideRetry.js";
import type { Risk } from "../../src/task/taskTypes.js";

function verdict(
  code: ErrorCode | null,
  options: { status?: ReceiptStatus; targetStatus?: number; step?: number | null; risk?: Risk; attempts?: number; cancel?: boolean } = {},
) {
  return decideRetry({
    risk: options.risk ?? "read_only",
    receipt: {
      status: options.status ?? "FAIL",
      error: code === null ? null : { code, message: "x", step: options.step === undefined ? 0 : options.step },
      ...(options.targetStatus === undefined ? {} : { targetStatus: options.targetStatus }),
    },
    attempts: options.attempts ?? 1,
    maxAttempts: 2,
    cancelRequested: options.cancel === true,
  });
}

describe("decideRetry", () => {
  test("a read_only failure a retry can change is retried: timeout, provider failure or capacity, a 5xx target, a target that never answered", () => {
    assert.equal(verdict("timeout").decision, "retry");
    assert.equal(verdict("provider_unavailable").decision, "retry");
    assert.equal(verdict("provider_capacity").decision, "retry");
    assert.equal(verdict("expectation_failed", { targetStatus: 503 }).decision, "retry");
    assert.equal(verdict("step_failed", { targetStatus: 500 }).decision, "retry");
    assert.match(verdict("step_failed", { step: null }).reason, /did not load/);
  });

  test("an expectation that failed or an element absent on a page that loaded without a 5xx is final at once, with the reason", () => {
    const expectation = verdict("expectation_failed", { targetStatus: 200 });
    assert.equal(expectation.decision, "final");
    assert.match(expectation.reason, /expectation did not hold on a page that loaded \(HTTP 200\)/);
    assert.equal(verdict("step_failed", { targetStatus: 404 }).decision, "final");
    assert.equal(verdict("step_failed", { step: null, targetStatus: 200 }).decision, "final", "the target loaded; the failure was not the network's");
  });

  test("policy refusals, cancels, writes, other statuses and used-up attempts are final", () => {
    for (const code of ["navigation_blocked", "method_blocked", "document_too_large", "secret_egress_blocked", "internal_error"] as const)
      assert.equal(verdict(code).decision, "final", code);
    assert.equal(verdict("timeout", { cancel: true }).decision, "final");
    assert.match(verdict("timeout", { risk: "reversible_write" }).reason, /A write is never retried/);
    assert.equal(verdict(null, { status: "PASS" }).decision, "final");
    assert.match(verdict("timeout", { attempts: 2 }).reason, /all 2 attempts are used/);
  });
});
