import type { ApprovalDecision } from "../store/Store.js";
import { approvalEndReceipt } from "./approvalEndReceipt.js";
import { makeHandle } from "./handle.js";
import { journalIdentity } from "./journalAccess.js";
import { refusingTampered } from "./refusingTampered.js";
import type { ServiceContext } from "./serviceContext.js";
import type { DecideApprovalServiceResult } from "./serviceTypes.js";

/**
 * Records the owner's decision, bound to the digest the owner was shown. Only the owner's own
 * channels call this (the CLI on the host, the owner console after the password); no MCP tool or
 * REST route leads here.
 */
export async function decideApproval(ctx: ServiceContext, operationId: string, decision: ApprovalDecision): Promise<DecideApprovalServiceResult> {
  const identity = await journalIdentity(ctx);
  if (!identity.ok) return identity;
  const id = operationId.toLowerCase();
  const result = await refusingTampered(() => ctx.store.decideApproval(id, decision, approvalEndReceipt));
  if ("ok" in result) return result;
  switch (result.kind) {
    case "not_found":
      return { ok: false, code: "operation_not_found", message: `No operation has the id ${operationId}; nothing was approved or denied.` };
    case "digest_mismatch":
      return {
        ok: false,
        code: "identity_mismatch",
        message: `Operation ${operationId} is not the request you were shown (its digest is ${result.operation.requestDigest}, not ${decision.requestDigest}); nothing was approved or denied. Look at it again.`,
        handle: makeHandle(result.operation),
      };
    case "expired":
      return {
        ok: false,
        code: "approval_expired",
        message: `Operation ${operationId} waited longer than its approval allowed and ended BLOCKED; it will not run. Ask for it to be submitted again under a new operationId.`,
        handle: makeHandle(result.operation),
      };
    case "not_awaiting":
      return {
        ok: false,
        code: "approval_not_pending",
        message: `Operation ${operationId} is not waiting for approval (it is ${result.operation.phase}); nothing was changed.`,
        handle: makeHandle(result.operation),
      };
    case "approved":
      ctx.workers?.wake();
      return { ok: true, outcome: "approved", status: "pending", handle: makeHandle(result.operation) };
    case "denied":
      ctx.signals.notify(result.operation.operationId);
      return { ok: true, outcome: "denied", status: "blocked", handle: makeHandle(result.operation) };
  }
}

/** Ends every wait for approval that has expired (BLOCKED approval_expired); returns how many. */
export async function expireApprovals(ctx: ServiceContext): Promise<number> {
  let total = 0;
  for (;;) {
    const ended = await ctx.store.expireApprovals(approvalEndReceipt, 100);
    total += ended.length;
    if (ended.length < 100) return total;
  }
}
