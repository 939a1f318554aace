// The readable receipt the CLI prints: page text (a failed check's observed, error.detail, the final
// URL, route reasons, blocked requests) is labelled untrusted, as the wrapper marks it in the stored
// receipt; a receipt stored before that was wrapped is read into the same shape and prints the same.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { formatReceipt } from "../../../src/interfaces/cli/formatReceipt.js";
import { emptyNetworkEvidence } from "../../../src/receipt/emptyNetworkEvidence.js";
import type { Receipt } from "../../../src/receipt/receiptTypes.js";
import { untrusted, untrustedValues } from "../../../src/receipt/untrustedText.js";
import { upgradeStoredReceipt } from "../../../src/receipt/upgradeStoredReceipt.js";
import { presentEphemeral } from "../../../src/interfaces/cli/operationOutput.js";
import { PLANTED } from "../../support/plantedSentence.js";
import { sampleReceipt } from "../../support/sampleReceipt.js";

/** A failed read of shop.example.com, any field overridden. */
function receipt(overrides: Partial<Receipt>): Receipt {
  return sampleReceipt({
    status: "FAIL",
    operationId: "8c1f5e2a-3b7d-4c9e-a1f0-5d6e7f8a9b0c",
    requestDigest: "hmac-sha256:00",
    finalUrl: untrusted("https://shop.example.com/"),
    ...overrides,
  });
}

describe("formatReceipt", () => {
  test("a failed check's observed and error.detail print labelled as untrusted page text; error.message is errand's", () => {
    const text = formatReceipt(
      receipt({
        checks: [{ step: 0, action: "expect_text", expected: "Saved", match: "contains", passed: false, observed: untrusted(PLANTED) }],
        error: { code: "step_failed", message: "Step 1 (click) failed.", step: 0, detail: untrusted(`locator.click: ${PLANTED}`) },
      }),
    );
    assert.match(text, new RegExp(`saw \\(untrusted page text\\) "${PLANTED}"`));
    assert.match(text, new RegExp(`detail +\\(untrusted: the browser's or page's words\\) locator.click: ${PLANTED}`));
    for (const line of text.split("\n").filter((l) => l.includes(PLANTED))) assert.match(line, /untrusted/, line);
  });

  test("the final URL, route reasons and blocked requests print labelled as untrusted", () => {
    const text = formatReceipt(
      receipt({
        finalUrl: untrusted(`https://shop.example.com/${PLANTED}`),
        fallback: [
          { provider: "kernel", outcome: "failed", code: "provider_unavailable", reason: untrusted(`Kernel failed (HTTP 502: ${PLANTED})`) },
          { provider: "local", outcome: "used" },
        ],
        network: {
          ...emptyNetworkEvidence(),
          blockedRequests: 1,
          blocked: [
            {
              url: untrusted(`https://${PLANTED}.example/`),
              method: "GET",
              resourceType: "image",
              code: "navigation_blocked",
              reason: untrusted(`${PLANTED}.example is not the target's host`),
            },
          ],
        },
      }),
    );
    const lines = text.split("\n").filter((l) => l.includes(PLANTED));
    assert.equal(lines.length, 3, text);
    for (const line of lines) assert.match(line, /\(untrusted[^)]*\) /, line);
  });

  test("extracted values print labelled as untrusted page text, in the text output and in the JSON envelope's ephemeral", () => {
    const text = formatReceipt(receipt({}), { ephemeral: true, outputs: { price: `42 EUR ${PLANTED}` } });
    const lines = text.split("\n").filter((l) => l.includes(PLANTED));
    assert.equal(lines.length, 1, text);
    assert.match(lines[0] ?? "", /output +price = \(untrusted: page text\) /);
    const presented = presentEphemeral({ ephemeral: true, outputs: { price: `42 EUR ${PLANTED}` } });
    assert.deepEqual(
      { untrusted: (presented as { untrusted?: boolean }).untrusted, price: presented.outputs["price"] },
      { untrusted: true, price: `42 EUR ${PLANTED}` },
      "whole, and marked",
    );
    assert.deepEqual(presentEphemeral({ ephemeral: true, outputs: {} }), { ephemeral: true, outputs: {} }, "nothing to mark without values");
  });

  test("a full-retention receipt's extracted values are wrapped whole and print labelled as untrusted page text, not as ephemeral", () => {
    const kept = receipt({ evidenceRetention: "full", outputs: untrustedValues({ price: `42 EUR\n${PLANTED}` }) });
    assert.deepEqual(kept.outputs, { price: { untrusted: true, text: `42 EUR\n${PLANTED}` } }, "line breaks kept: the value is data, read whole");
    const text = formatReceipt(kept, { ephemeral: true, outputs: { price: `42 EUR\n${PLANTED}` } });
    const lines = text.split("\n").filter((l) => l.includes(PLANTED));
    assert.equal(lines.length, 1, text);
    assert.equal(
      lines[0],
      `  output      price = (untrusted: page text) ${JSON.stringify(`42 EUR\n${PLANTED}`)}`,
      "the value's text, not its wrapper, and not marked ephemeral: it is kept",
    );
  });

  test("a receipt stored before the wrapper (plain strings) is read into it and prints the same", () => {
    const legacy = receipt({
      finalUrl: "https://shop.example.com/done" as never,
      checks: [{ step: 0, action: "expect_text", expected: "Saved", match: "contains", passed: false, observed: "Not saved" as never }],
      evidenceRetention: "full",
      outputs: { price: "42 EUR" } as never,
    });
    const text = formatReceipt(upgradeStoredReceipt(legacy));
    assert.match(text, /saw \(untrusted page text\) "Not saved"/);
    assert.match(text, /output +price = \(untrusted: page text\) "42 EUR"$/m);
    assert.match(text, /final URL +\(untrusted: the page chose it\) https:\/\/shop.example.com\/done/);
  });
});
