import { buildApprovalRequest } from "./approvalRequest.js";
import { readAuthenticated } from "./inspectOperation.js";
import type { ServiceContext } from "./serviceContext.js";
import type { OperationListItem, ServiceFailure } from "./serviceTypes.js";
import { statusOfPhase } from "./serviceTypes.js";
import type { Requester } from "./requester.js";
import { OWNER } from "./requester.js";

/**
 * Operations by last change (the owner console's lists), only the requester's own unless it sees
 * everyone's, each authenticated against the journal (one that is not is left out rather than shown).
 * Expired waits are ended first.
 */
export async function listOperations(
  ctx: ServiceContext,
  query: { awaitingApproval?: boolean; limit: number },
  requester: Requester = OWNER,
): Promise<OperationListItem[]> {
  const records = await ctx.store.listOperations({
    ...(query.awaitingApproval === true ? { phase: "awaiting_approval" as const } : {}),
    ...(requester.seesAll ? {} : { submittedBy: requester.submitter }),
    limit: query.limit,
  });
  const items: OperationListItem[] = [];
  for (const record of records) {
    const view = await readAuthenticated(ctx, record.operationId, requester);
    if ("ok" in view || view.kind === "compacted") continue;
    const op = view.operation;
    if (query.awaitingApproval === true && op.phase !== "awaiting_approval") continue;
    const approval = op.phase === "awaiting_approval" ? await buildApprovalRequest(ctx, op) : undefined;
    if (approval !== undefined && "ok" in approval) continue;
    items.push(listItem(view, approval));
  }
  return items;
}

/** One operation as the owner console shows it: status, receipt once terminal, the approval while awaited. */
export async function readOperationItem(ctx: ServiceContext, operationId: string, requester: Requester = OWNER): Promise<OperationListItem | ServiceFailure> {
  const view = await readAuthenticated(ctx, operationId, requester);
  if ("ok" in view) return view;
  if (view.kind === "compacted")
    return {
      ok: false,
      code: "operation_not_found",
      message: `Operation ${operationId} finished long ago and was compacted; only its final status remains (${view.tombstone.receiptStatus ?? view.tombstone.phase}).`,
    };
  const op = view.operation;
  const approval = op.phase === "awaiting_approval" ? await buildApprovalRequest(ctx, op) : undefined;
  if (approval !== undefined && "ok" in approval) return approval;
  return listItem(view, approval);
}

/** The one shape both the list and the single read answer with. */
function listItem(
  view: Extract<Awaited<ReturnType<typeof readAuthenticated>>, { kind: "live" }>,
  approval: Exclude<Awaited<ReturnType<typeof buildApprovalRequest>>, ServiceFailure> | undefined,
): OperationListItem {
  const op = view.operation;
  return {
    status: statusOfPhase(op.phase),
    handle: view.handle,
    risk: op.risk,
    updatedAt: new Date(op.updatedMs).toISOString(),
    ...(view.receipt === undefined ? {} : { receipt: view.receipt }),
    ...(approval === undefined ? {} : { approval }),
  };
}
