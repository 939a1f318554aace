// A minimal, valid receipt for store and lifecycle tests that need one but do not care what it says. Not a test file.
import { emptyNetworkEvidence } from "../../src/receipt/emptyNetworkEvidence.js";
import type { Receipt } from "../../src/receipt/receiptTypes.js";

/** A read of https://example.com/ that ended with `status` at 2026-01-01; any field can be overridden. */
export function sampleReceipt(fields: Pick<Receipt, "status"> & Partial<Receipt>): Receipt {
  return {
    receiptVersion: "errand.receipt.v1",
    operationId: "x",
    requestDigest: "d",
    risk: "read_only",
    provider: "local",
    finalUrl: { untrusted: true, text: "https://example.com/" },
    checks: [],
    steps: [],
    error: null,
    startedAt: new Date(Date.UTC(2026, 0, 1)).toISOString(),
    durationMs: 1,
    attempts: 1,
    network: emptyNetworkEvidence(),
    mutationBoundary: "not_crossed",
    evidenceRetention: "minimal",
    fallback: [],
    ...fields,
  };
}
