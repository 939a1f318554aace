import { readStoredTask } from "../runner/readStoredTask.js";
import type { OperationRecord } from "../store/Store.js";
import { describeTask, formatTaskDescription } from "../task/describeTask.js";
import { requestDigest } from "../task/requestDigest.js";
import { readAuthenticated } from "./inspectOperation.js";
import type { ServiceContext } from "./serviceContext.js";
import type { ApprovalRequest, ApprovalRequestResult, ServiceFailure } from "./serviceTypes.js";

/**
 * What the owner is asked to approve, made from the stored task after it was read back, validated
 * and digested again: a summary of anything else than the very request under this digest would
 * let an edited row obtain an approval it was never shown for.
 */
export async function buildApprovalRequest(ctx: ServiceContext, operation: OperationRecord): Promise<ApprovalRequest | ServiceFailure> {
  const stored = await ctx.store.readOperationTask(operation.operationId);
  const task = stored === undefined ? null : readStoredTask(stored.taskJson);
  if (task === null || requestDigest(ctx.digestKey, task) !== operation.requestDigest) {
    return {
      ok: false,
      code: "journal_tampered",
      message: `Operation ${operation.operationId}: its stored task no longer matches its request digest, so it cannot be shown or approved. Run "errand journal verify".`,
    };
  }
  const sites = new Map<string, string[]>();
  const lookup = ctx.secretSites;
  if (lookup !== undefined) {
    for (const step of task.steps) {
      if (step.action !== "fill_secret" || sites.has(step.secret)) continue;
      sites.set(step.secret, (await lookup(step.secret)) ?? ["nowhere: the owner has not declared it, so errand refuses it"]);
    }
  }
  const description = describeTask(task, (name) => sites.get(name));
  return {
    requestDigest: operation.requestDigest,
    expiresAt: new Date(operation.approvalExpiresMs ?? operation.createdMs).toISOString(),
    summary: formatTaskDescription(description, operation.requestDigest),
    description,
  };
}

/** The approval an operation is waiting for; approval_not_pending when it waits for none. */
export async function approvalRequest(ctx: ServiceContext, operationId: string): Promise<ApprovalRequestResult> {
  const view = await readAuthenticated(ctx, operationId);
  if ("ok" in view) return view;
  if (view.kind === "compacted" || view.operation.phase !== "awaiting_approval") {
    return {
      ok: false,
      code: "approval_not_pending",
      message: `Operation ${operationId} is not waiting for the owner's approval (it is ${view.handle.phase}); there is nothing to approve or deny.`,
      handle: view.handle,
    };
  }
  const approval = await buildApprovalRequest(ctx, view.operation);
  if ("ok" in approval) return approval;
  return { ok: true, status: "awaiting_approval", handle: view.handle, approval };
}
