import type { Receipt } from "../receipt/receiptTypes.js";
import type { OperationRecord } from "./operationRecord.js";

/** The owner's answer, bound to the request digest the owner was shown, who gave it, and how. */
export interface ApprovalDecision {
  approve: boolean;
  requestDigest: string;
  /** Who decided, e.g. "owner (cli: ada@host)" or "owner (console: 203.0.113.5)". */
  decidedBy: string;
  via: "cli" | "console";
}

export type ApprovalEndCode = "approval_denied" | "approval_expired";
export type BlockedReceiptFactory = (operation: OperationRecord, taskJson: string, code: ApprovalEndCode) => Receipt;

export type DecideApprovalResult =
  | { kind: "approved" | "denied"; operation: OperationRecord }
  /** The wait had expired: the operation is now (or already was) BLOCKED approval_expired. */
  | { kind: "expired"; operation: OperationRecord }
  | { kind: "not_awaiting"; operation: OperationRecord }
  /** The operation under this id is not the request the owner was shown. */
  | { kind: "digest_mismatch"; operation: OperationRecord }
  | { kind: "not_found" };
