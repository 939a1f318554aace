import { extractedValues } from "../../receipt/extractedValues.js";
import type { EphemeralEvidence, Receipt, ReceiptStatus } from "../../receipt/receiptTypes.js";
import { stepLabel } from "../../task/stepLabel.js";

const STATUS_MEANING: Record<ReceiptStatus, string> = {
  PASS: "every expectation held",
  PARTIAL: "all steps ran, but the task expected nothing, so nothing is proven",
  FAIL: "a step or an expectation failed",
  BLOCKED: "refused before anything could change the site",
  UNCERTAIN: "a write may have happened; errand will not repeat it, check the site",
  CANCELLED: "cancelled before anything could change the site",
};

/** Blocked requests listed in the readable receipt; the rest stay in the JSON. */
const BLOCKED_LINES = 5;

/**
 * A receipt as a person reads it in a terminal. Every line that carries page-derived text (final
 * URL, observed, error.detail, route reasons, blocked requests, extracted values) says so with
 * "untrusted" before it; extracted values not kept in the receipt are marked as live-only.
 */
export function formatReceipt(receipt: Receipt, ephemeral?: EphemeralEvidence): string {
  const lines = [
    `${receipt.status}: ${STATUS_MEANING[receipt.status]}`,
    `  operation   ${receipt.operationId}${receipt.label === undefined ? "" : ` (${receipt.label})`}`,
    `  digest      ${receipt.requestDigest}`,
    `  provider    ${receipt.provider}, attempt ${receipt.attempts}, ${receipt.durationMs} ms`,
    `  final URL   ${receipt.finalUrl === null ? "(none)" : `(untrusted: the page chose it) ${receipt.finalUrl.text}`}`,
    `  boundary    mutation ${receipt.mutationBoundary.replace("_", " ")}`,
  ];
  for (const check of receipt.checks) {
    const mark = check.passed ? "held" : "FAILED";
    const seen = check.passed ? "" : `; saw (untrusted page text) "${check.observed?.text ?? ""}"`;
    lines.push(`  check       ${stepLabel(check.step)} ${check.action} ${check.match} "${check.expected}" ${mark}${seen}`);
  }
  if (receipt.error !== null) {
    lines.push(`  error       ${receipt.error.code}${receipt.error.step === null ? "" : ` at ${stepLabel(receipt.error.step)}`}: ${receipt.error.message}`);
    if (receipt.error.detail !== undefined) lines.push(`  detail      (untrusted: the browser's or page's words) ${receipt.error.detail.text}`);
  }
  // Routing: only worth a line when another provider than the one used was considered.
  for (const record of receipt.fallback.length > 1 ? receipt.fallback : []) {
    lines.push(
      `  route       ${record.provider} ${record.outcome}${record.code === undefined ? "" : ` (${record.code})`}${record.reason === undefined || record.outcome === "used" ? "" : `: (untrusted: may quote the provider or page) ${record.reason.text}`}`,
    );
  }
  const n = receipt.network;
  const guards = [
    [n.blockedRequests, "requests blocked"],
    [n.nonGetAborted, "non-GET aborted"],
    [n.navigationsBlocked, "navigations blocked"],
    [n.popupsClosed, "popups closed"],
    [n.dialogsDismissed, "dialogs dismissed"],
    [n.downloadsRefused, "downloads refused"],
  ].filter(([count]) => count !== 0);
  if (guards.length > 0) lines.push(`  guards      ${guards.map(([count, what]) => `${count} ${what}`).join(", ")}`);
  // The first few stopped requests: their addresses and reasons are the page's choice, so labelled.
  for (const entry of n.blocked.slice(0, BLOCKED_LINES)) {
    lines.push(`  blocked     ${entry.method} ${entry.resourceType} (${entry.code}) (untrusted: the page chose it) ${entry.url.text}: ${entry.reason.text}`);
  }
  if (n.blocked.length > BLOCKED_LINES) lines.push(`  blocked     ... ${n.blocked.length - BLOCKED_LINES} more in the receipt's network.blocked`);
  const { values, kept } = extractedValues(receipt, ephemeral);
  for (const [name, value] of Object.entries(values)) {
    const shown = value.length > 200 ? `${value.slice(0, 197)}...` : value;
    lines.push(`  output      ${name} = (untrusted: page text) ${JSON.stringify(shown)}${kept ? "" : " (ephemeral: not kept)"}`);
  }
  return lines.join("\n");
}
