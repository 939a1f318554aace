import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { AttemptState } from "../../src/executor/attemptState.js";
import { buildReceipt } from "../../src/executor/buildReceipt.js";
import { Redactor } from "../../src/executor/redactor.js";
import { RECEIPT_STATUSES } from "../../src/receipt/receiptTypes.js";
import { validateTask } from "../../src/task/validateTask.js";

const doc = readFileSync("docs/RECEIPTS.md", "utf8");

describe("docs/RECEIPTS.md", () => {
  it("documents every field a full-retention receipt carries, and every status", () => {
    const task = validateTask({
      schemaVersion: "errand.task.v1",
      operationId: "3f0c6a52-6c1e-4a8e-9c39-2b1c1f1d4e55",
      label: "x",
      target: { url: "https://example.com/" },
      risk: "read_only",
      evidenceRetention: "full",
      steps: [{ action: "expect_url", url: "https://example.com/" }],
    });
    assert.ok(task.ok);
    const { receipt } = buildReceipt(
      { task: task.value, requestDigest: "d", attempt: 1, provider: "local", finalUrl: null, startedAt: new Date(), durationMs: 1, sessionId: "s" },
      new AttemptState(),
      new Redactor(),
    );
    const fields = [...Object.keys(receipt), ...Object.keys(receipt.network)];
    for (const field of fields) assert.ok(doc.includes(`\`${field}\``), `docs/RECEIPTS.md does not mention ${field}`);
    for (const status of RECEIPT_STATUSES) assert.ok(doc.includes(`\`${status}\``), status);
  });
});
