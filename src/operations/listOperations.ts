import { buildApprovalRequest } from "./approvalRequest.js";
import { readAuthenticated } from "./inspectOperation.js";
import type { ServiceContext } from "./serviceContext.js";
import type { OperationListItem } from "./serviceTypes.js";
import { statusOfPhase } from "./serviceTypes.js";

/**
 * Operations by last change for the owner console, each authenticated against the journal (one
 * that is not is left out rather than shown). Expired waits are ended first.
 */
export async function listOperations(ctx: ServiceContext, query: { awaitingApproval?: boolean; limit: number }): Promise<OperationListItem[]> {
  const records = await ctx.store.listOperations({ ...(query.awaitingApproval === true ? { phase: "awaiting_approval" as const } : {}), limit: query.limit });
  const items: OperationListItem[] = [];
  for (const record of records) {
    const view = await readAuthenticated(ctx, record.operationId);
    if ("ok" in view || view.kind === "compacted") continue;
    const op = view.operation;
    if (query.awaitingApproval === true && op.phase !== "awaiting_approval") continue;
    const approval = op.phase === "awaiting_approval" ? await buildApprovalRequest(ctx, op) : undefined;
    if (approval !== undefined && "ok" in approval) continue;
    items.push({
      status: statusOfPhase(op.phase),
      handle: view.handle,
      risk: op.risk,
      updatedAt: new Date(op.updatedMs).toISOString(),
      ...(view.receipt === undefined ? {} : { receipt: view.receipt }),
      ...(approval === undefined ? {} : { approval }),
    });
  }
  return items;
}
