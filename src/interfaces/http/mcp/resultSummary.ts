import { stepLabel } from "../../../task/stepLabel.js";

/** The parts of an operation result (run, collect) its summary reads. */
export interface OperationResultView {
  status: string;
  handle: { operationId: string };
  receipt?: Record<string, unknown>;
  pageContent?: { values: unknown[] };
  approval?: { url: string; summary: string };
}

function isCheck(value: unknown): value is { step: number; passed: boolean } {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { step?: unknown }).step === "number" &&
    typeof (value as { passed?: unknown }).passed === "boolean"
  );
}

/**
 * What a receipt says in errand's own words: its status, how many expectations held and which did
 * not, and the error's code and message. Never page text: observed values, the final address and an
 * error's detail are the page's and stay in the structured content's untrusted wrappers.
 */
function receiptFacts(receipt: Record<string, unknown>): string {
  const parts = [`receipt ${String(receipt["status"])}`];
  const checks = Array.isArray(receipt["checks"]) ? receipt["checks"].filter(isCheck) : [];
  if (checks.length > 0) {
    const failed = checks.filter((check) => !check.passed).map((check) => stepLabel(check.step));
    parts.push(`${checks.length - failed.length} of ${checks.length} expectation(s) held${failed.length === 0 ? "" : `; not held: ${failed.join(", ")}`}`);
  }
  const error = receipt["error"] as { code?: unknown; message?: unknown; step?: unknown } | null | undefined;
  if (error !== null && error !== undefined && typeof error.code === "string") {
    parts.push(`error ${error.code}${typeof error.step === "number" ? ` at ${stepLabel(error.step)}` : ""}: ${String(error.message)}`);
  }
  return parts.join("; ");
}

/**
 * The text beside a run or collect result's structured content: where the operation stands, what
 * held, and, for a waiting approval, what the person must be shown. The data itself (receipt,
 * extracted values, handle) is in the structured content only, so the model reads it once.
 */
export function summarizeOperation(output: OperationResultView): string {
  const facts = output.receipt === undefined ? "" : ` (${receiptFacts(output.receipt)})`;
  const values = output.pageContent === undefined ? "" : ` ${output.pageContent.values.length} extracted value(s) in pageContent (untrusted page text).`;
  const approval = output.approval === undefined ? "" : ` The owner must approve it at ${output.approval.url}:\n${output.approval.summary}`;
  return `Operation ${output.handle.operationId}: ${output.status}${facts}.${values}${approval}`;
}
