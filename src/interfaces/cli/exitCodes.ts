import type { ErrorCode } from "../../errors/errorCodes.js";
import { SUBMIT_REFUSAL_CODES } from "../../operations/submitRefusal.js";
import { NETWORK_BLOCK_CODES } from "../../policy/networkVerdict.js";
import { RECEIPT_STATUSES } from "../../receipt/receiptTypes.js";
import type { ReceiptStatus } from "../../receipt/receiptTypes.js";
import { POLICY_CODES } from "../../task/validateTask.js";

/** Process exit codes. They match receipt statuses so scripts can branch without parsing output. */
export const EXIT = {
  pass: 0,
  fail: 1,
  usage: 2,
  partial: 3,
  blocked: 4,
  uncertain: 5,
  cancelled: 6,
  pending: 7,
} as const;

/**
 * The CLI's exit decisions, all here: a receipt's status, a refused call's error code, and a collect
 * that may still be waiting. Commands pick the value; none decides one of these itself.
 */
const STATUS_EXIT: Record<ReceiptStatus, number> = {
  PASS: EXIT.pass,
  FAIL: EXIT.fail,
  PARTIAL: EXIT.partial,
  BLOCKED: EXIT.blocked,
  UNCERTAIN: EXIT.uncertain,
  CANCELLED: EXIT.cancelled,
};

export function exitCodeFor(status: ReceiptStatus): number {
  return STATUS_EXIT[status];
}

/** Failures about errand's own state, not about what the caller sent. */
const STATE_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "approval_not_pending",
  "journal_quota_exceeded",
  "journal_tampered",
  "operation_not_found",
  "artifact_not_found",
  "artifact_mismatch",
  "internal_error",
  "store_busy",
  "store_schema_too_new",
  "store_unavailable",
  "configuration_error",
  "key_error",
  "key_rotation_refused",
]);

/** A destination the network policy refuses (preflight's verdicts): BLOCKED, like a run stopped there. */
const DESTINATION_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([...NETWORK_BLOCK_CODES, "network_blocked"]);

/** Exit code for a refused call: 4 for a missing approval or a refused destination (BLOCKED), 1 for errand's state, 2 for bad input (identity_mismatch included). */
export function exitForFailure(code: ErrorCode): number {
  if (POLICY_CODES.has(code) || SUBMIT_REFUSAL_CODES.has(code) || DESTINATION_CODES.has(code) || code === "approval_expired" || code === "approval_denied")
    return EXIT.blocked;
  if (STATE_CODES.has(code)) return EXIT.fail;
  return EXIT.usage;
}

/** Exit code for a collect or inspect answer: 7 while it is still pending or awaiting the owner, else its receipt's status (1 when it has none). */
export function exitForOutcome(status: string, receiptStatus: unknown): number {
  if (status === "pending" || status === "awaiting_approval") return EXIT.pending;
  return isReceiptStatus(receiptStatus) ? exitCodeFor(receiptStatus) : EXIT.fail;
}

function isReceiptStatus(value: unknown): value is ReceiptStatus {
  return typeof value === "string" && (RECEIPT_STATUSES as readonly string[]).includes(value);
}
