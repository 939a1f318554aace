// The one rule for a receipt's status. The executor decides it from its evidence, the runner again
// with the store's boundary (from the executor's receipt): deciding again never changes a status the
// same facts gave, so the two can never disagree, and a crossed boundary always wins over a claim.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { decideStatus } from "../../src/receipt/decideStatus.js";
import type { AttemptEnd } from "../../src/receipt/decideStatus.js";
import type { ReceiptStatus } from "../../src/receipt/receiptTypes.js";

const CODES = [
  "expectation_failed",
  "step_failed",
  "timeout",
  "task_timeout",
  "provider_unavailable",
  "secret_site_mismatch",
  "login_required",
  "lease_expired",
  "internal_error",
  "policy_blocked",
];
const ENDS: AttemptEnd[] = [
  { kind: "untouched" },
  { kind: "cancelled" },
  ...CODES.map((code) => ({ kind: "stopped" as const, code })),
  { kind: "ran", expectations: 0, held: 0 },
  { kind: "ran", expectations: 2, held: 2 },
  { kind: "ran", expectations: 2, held: 1 },
];
const label = (end: AttemptEnd) => JSON.stringify(end);

/** What the runner reads back from a receipt the executor wrote (decideAttempt's reading). */
function endOfReceipt(status: ReceiptStatus, end: AttemptEnd): AttemptEnd {
  if (status === "BLOCKED") return { kind: "untouched" };
  return end;
}

describe("decideStatus", () => {
  test("PASS needs expectations that all held; none is PARTIAL; one that failed is FAIL, a write's too", () => {
    for (const write of [false, true]) {
      for (const crossed of write ? [false, true] : [false]) {
        assert.equal(decideStatus({ write, crossed, end: { kind: "ran", expectations: 3, held: 3 } }), "PASS");
        assert.equal(decideStatus({ write, crossed, end: { kind: "ran", expectations: 0, held: 0 } }), "PARTIAL");
        assert.equal(decideStatus({ write, crossed, end: { kind: "ran", expectations: 3, held: 2 } }), "FAIL");
        assert.equal(decideStatus({ write, crossed, end: { kind: "stopped", code: "expectation_failed" } }), "FAIL");
      }
    }
  });

  test("a write that did not run to its end is UNCERTAIN past its boundary, BLOCKED or CANCELLED before it", () => {
    for (const code of CODES.filter((c) => c !== "expectation_failed")) {
      assert.equal(decideStatus({ write: true, crossed: false, end: { kind: "stopped", code } }), "BLOCKED", code);
      assert.equal(decideStatus({ write: true, crossed: true, end: { kind: "stopped", code } }), "UNCERTAIN", code);
    }
    assert.equal(decideStatus({ write: true, crossed: false, end: { kind: "cancelled" } }), "CANCELLED");
    assert.equal(decideStatus({ write: true, crossed: true, end: { kind: "cancelled" } }), "UNCERTAIN");
    assert.equal(decideStatus({ write: true, crossed: false, end: { kind: "untouched" } }), "BLOCKED");
    // The store knows more than a claim of "nothing was done": a crossed boundary wins.
    assert.equal(decideStatus({ write: true, crossed: true, end: { kind: "untouched" } }), "UNCERTAIN");
  });

  test("a read that stopped is FAIL, CANCELLED, or BLOCKED when stopped before anything was done; never UNCERTAIN", () => {
    assert.equal(decideStatus({ write: false, crossed: false, end: { kind: "stopped", code: "timeout" } }), "FAIL");
    assert.equal(decideStatus({ write: false, crossed: false, end: { kind: "stopped", code: "lease_expired" } }), "FAIL");
    assert.equal(decideStatus({ write: false, crossed: false, end: { kind: "stopped", code: "secret_site_mismatch" } }), "BLOCKED");
    assert.equal(decideStatus({ write: false, crossed: false, end: { kind: "stopped", code: "login_required" } }), "BLOCKED");
    assert.equal(decideStatus({ write: false, crossed: false, end: { kind: "cancelled" } }), "CANCELLED");
    assert.equal(decideStatus({ write: false, crossed: false, end: { kind: "untouched" } }), "BLOCKED");
    for (const end of ENDS) assert.notEqual(decideStatus({ write: false, crossed: false, end }), "UNCERTAIN", label(end));
  });

  test("deciding again from the receipt changes nothing, and the store's crossed boundary can only move a write to UNCERTAIN", () => {
    for (const write of [false, true]) {
      for (const crossed of write ? [false, true] : [false]) {
        for (const end of ENDS) {
          const first = decideStatus({ write, crossed, end });
          const again = decideStatus({ write, crossed, end: endOfReceipt(first, end) });
          assert.equal(again, first, `${write} ${crossed} ${label(end)}`);
          if (write && !crossed) {
            const withStore = decideStatus({ write, crossed: true, end: endOfReceipt(first, end) });
            assert.ok(withStore === first || withStore === "UNCERTAIN", `${label(end)}: ${first} → ${withStore}`);
          }
        }
      }
    }
  });
});
