// Receipts stored before page-derived text was wrapped where it is made (plain finalUrl, observed,
// fallback reasons, blocked addresses, a full-retention receipt's extracted values) still read, and read into the wrapped shape; the stored
// journal event, its MAC and journal verify are untouched by the upgrade.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";
import type { ExecuteTask } from "../../src/executor/executeTaskTypes.js";
import { canonicalJson } from "../../src/task/canonicalJson.js";
import { emptyNetworkEvidence } from "../../src/receipt/emptyNetworkEvidence.js";
import type { Receipt } from "../../src/receipt/receiptTypes.js";
import { isUntrustedText, untrusted, UNTRUSTED_URL_CHARS, UNTRUSTED_VALUE_CHARS } from "../../src/receipt/untrustedText.js";
import { upgradeStoredReceipt } from "../../src/receipt/upgradeStoredReceipt.js";
import { openHarness } from "../operations/support/harness.js";
import { readTask } from "../operations/support/tasks.js";

/** A receipt in the shape errand wrote before: page-chosen strings unwrapped. */
function legacyReceipt(operationId: string, requestDigest: string): Receipt {
  const receipt = {
    receiptVersion: "errand.receipt.v1",
    status: "FAIL",
    operationId,
    requestDigest,
    risk: "read_only",
    provider: "local",
    finalUrl: `https://example.com/${"x".repeat(600)}`,
    checks: [{ step: 0, action: "expect_text", expected: "Example Domain", match: "contains", passed: false, observed: "Something   else\nentirely" }],
    steps: [{ index: 0, action: "expect_text", status: "failed", durationMs: 3 }],
    error: { code: "expectation_failed", message: "Expectation at step 1 did not hold.", step: 0 },
    startedAt: new Date(0).toISOString(),
    durationMs: 5,
    attempts: 1,
    network: {
      ...emptyNetworkEvidence(),
      blockedRequests: 1,
      blocked: [
        {
          url: "https://tracker.example/p",
          method: "GET",
          resourceType: "image",
          code: "navigation_blocked",
          reason: "tracker.example is not the target's host",
        },
      ],
    },
    mutationBoundary: "not_crossed",
    evidenceRetention: "minimal",
    fallback: [{ provider: "local", outcome: "used", code: "expectation_failed", reason: "Expectation at step 1 did not hold." }],
  };
  return receipt as unknown as Receipt;
}

describe("upgradeStoredReceipt", () => {
  test("wraps each legacy plain string with the caps new receipts get, and leaves the rest as stored", () => {
    const legacy = legacyReceipt(randomUUID(), "hmac-sha256:00");
    const upgraded = upgradeStoredReceipt(legacy);
    assert.ok(upgraded.finalUrl !== null && isUntrustedText(upgraded.finalUrl));
    assert.equal(upgraded.finalUrl.truncated, true);
    assert.equal(upgraded.finalUrl.text.length, UNTRUSTED_URL_CHARS + 1);
    assert.deepEqual(upgraded.checks[0]?.observed, { untrusted: true, text: "Something else entirely" });
    assert.deepEqual(upgraded.fallback[0]?.reason, { untrusted: true, text: "Expectation at step 1 did not hold." });
    assert.deepEqual(upgraded.network.blocked[0], {
      url: untrusted("https://tracker.example/p"),
      method: "GET",
      resourceType: "image",
      code: "navigation_blocked",
      reason: untrusted("tracker.example is not the target's host"),
    });
    assert.deepEqual(
      { ...upgraded, finalUrl: null, checks: [], fallback: [], network: null },
      { ...legacy, finalUrl: null, checks: [], fallback: [], network: null },
    );
    assert.equal((legacy as unknown as { finalUrl: unknown }).finalUrl, `https://example.com/${"x".repeat(600)}`, "the stored object is not changed");
  });

  test("a receipt already in the wrapped shape is read unchanged (canonical JSON identical)", () => {
    const current = upgradeStoredReceipt(legacyReceipt(randomUUID(), "hmac-sha256:00"));
    assert.equal(canonicalJson(upgradeStoredReceipt(current)), canonicalJson(current));
    const empty = { ...current, finalUrl: null, checks: [], fallback: [], network: emptyNetworkEvidence() };
    assert.equal(canonicalJson(upgradeStoredReceipt(empty)), canonicalJson(empty));
  });

  test("a full-retention receipt's plain extracted values are wrapped whole (line breaks kept, the value cap); wrapped ones are kept; none stays none", () => {
    const base = legacyReceipt(randomUUID(), "hmac-sha256:00");
    const long = "v".repeat(UNTRUSTED_VALUE_CHARS + 5);
    const legacy = { ...base, evidenceRetention: "full", outputs: { hours: "Mon  9-5\nTue 9-5", long, odd: 42 } } as unknown as Receipt;
    const upgraded = upgradeStoredReceipt(legacy);
    assert.deepEqual(upgraded.outputs?.["hours"], { untrusted: true, text: "Mon  9-5\nTue 9-5" });
    assert.equal(upgraded.outputs?.["long"]?.truncated, true);
    assert.equal(upgraded.outputs?.["long"]?.text.length, UNTRUSTED_VALUE_CHARS + 1);
    assert.deepEqual(upgraded.outputs?.["odd"], { untrusted: true, text: "" }, "never passed through unmarked");
    assert.equal((legacy as unknown as { outputs: Record<string, unknown> }).outputs["hours"], "Mon  9-5\nTue 9-5", "the stored object is not changed");
    const current = upgradeStoredReceipt(upgraded);
    assert.equal(canonicalJson(current), canonicalJson(upgraded), "not wrapped twice");
    assert.equal("outputs" in upgradeStoredReceipt(base), false);
  });

  test("a legacy receipt in the journal is collected wrapped (by this process and another); its event still verifies", async () => {
    // A full-retention task whose extracted value was stored plain, as errand wrote it then.
    const legacyExecutor: ExecuteTask = (task, context) =>
      Promise.resolve({
        receipt: { ...legacyReceipt(task.operationId, context.requestDigest), evidenceRetention: "full", outputs: { title: "Example Domain" } as never },
        ephemeral: { ephemeral: true, outputs: {} },
      });
    const h = await openHarness({ execute: legacyExecutor });
    try {
      const id = randomUUID();
      const submitted = await h.service.submit(readTask(id, undefined, { evidenceRetention: "full" }));
      assert.ok(submitted.ok);
      await h.service.runQueue();
      const collected = await h.service.collect(id);
      assert.ok(collected.ok && collected.receipt !== undefined, JSON.stringify(collected));
      // Another process on the same store reads the same authenticated event.
      const other = (await h.reopen()).service;
      const again = await other.collect(id);
      assert.ok(again.ok && again.receipt !== undefined);
      for (const receipt of [collected.receipt, again.receipt]) {
        assert.ok(receipt.finalUrl !== null && isUntrustedText(receipt.finalUrl));
        assert.ok(isUntrustedText(receipt.checks[0]?.observed));
        assert.ok(isUntrustedText(receipt.fallback[0]?.reason));
        assert.ok(isUntrustedText(receipt.network.blocked[0]?.url) && isUntrustedText(receipt.network.blocked[0]?.reason));
        assert.deepEqual(receipt.outputs, { title: { untrusted: true, text: "Example Domain" } });
      }
      const verdict = await h.service.verifyJournal();
      assert.ok(verdict.ok, JSON.stringify(verdict));
    } finally {
      await h.close();
    }
  });
});
