// The one rule for how a write ends, used by the executor (its evidence) and the runner (the store's
// boundary). Applying it twice changes nothing, so the two can never disagree.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ReceiptStatus } from "../../src/receipt/receiptTypes.js";
import { settleWriteStatus } from "../../src/receipt/settleWriteStatus.js";

const STATUSES: ReceiptStatus[] = ["PASS", "PARTIAL", "FAIL", "BLOCKED", "UNCERTAIN", "CANCELLED"];
const CODES = [undefined, "expectation_failed", "step_failed", "timeout", "provider_unavailable", "cancelled", "secret_site_mismatch"];

describe("settleWriteStatus", () => {
  test("a write that ran to its end keeps PASS, PARTIAL, or FAIL from a checked expectation", () => {
    for (const crossed of [false, true]) {
      assert.equal(settleWriteStatus("PASS", { code: undefined, cancelled: false, crossed }), "PASS");
      assert.equal(settleWriteStatus("PARTIAL", { code: undefined, cancelled: false, crossed }), "PARTIAL");
      assert.equal(settleWriteStatus("FAIL", { code: "expectation_failed", cancelled: false, crossed }), "FAIL");
    }
  });

  test("anything else is BLOCKED or CANCELLED before the boundary and UNCERTAIN past it", () => {
    for (const code of ["step_failed", "timeout", "provider_unavailable", "secret_site_mismatch"]) {
      assert.equal(settleWriteStatus("FAIL", { code, cancelled: false, crossed: false }), "BLOCKED", code);
      assert.equal(settleWriteStatus("FAIL", { code, cancelled: false, crossed: true }), "UNCERTAIN", code);
    }
    assert.equal(settleWriteStatus("CANCELLED", { code: "cancelled", cancelled: true, crossed: false }), "CANCELLED");
    assert.equal(settleWriteStatus("CANCELLED", { code: "cancelled", cancelled: true, crossed: true }), "UNCERTAIN");
  });

  test("applying it again changes nothing (the runner re-applies it to the executor's answer)", () => {
    for (const status of STATUSES) {
      for (const code of CODES) {
        for (const cancelled of [false, true]) {
          for (const crossed of [false, true]) {
            const once = settleWriteStatus(status, { code, cancelled, crossed });
            assert.equal(settleWriteStatus(once, { code, cancelled, crossed }), once, `${status} ${String(code)} ${cancelled} ${crossed}`);
          }
        }
      }
    }
  });
});
