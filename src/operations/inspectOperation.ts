import type { JournalEventRow, OperationTombstone } from "../journal/journalTypes.js";
import { approvalEndReceipt } from "./approvalEndReceipt.js";
import { buildApprovalRequest } from "./approvalRequest.js";
import { attemptHistory } from "./attemptHistory.js";
import { authenticateView, tampered } from "./authenticateView.js";
import { journalIdentity } from "./journalAccess.js";
import type { AuthenticatedView } from "./authenticateView.js";
import type { ServiceContext } from "./serviceContext.js";
import type { InspectResult, ServiceFailure, TombstoneSummary } from "./serviceTypes.js";
import { statusOfPhase } from "./serviceTypes.js";
import type { OperationView } from "../store/Store.js";
import type { Requester } from "./requester.js";
import { OWNER, canSee } from "./requester.js";

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/**
 * Whether the requester may see what is stored under an id: a live operation it may see (canSee), or
 * a tombstone, which names no submitter and so is shown only to those who see everything. Decided on
 * the row as stored: a row edited to name the requester still fails authentication afterwards.
 */
export function visibleTo(view: OperationView | undefined, requester: Requester): view is OperationView {
  if (view === undefined) return false;
  return view.kind === "live" ? canSee(requester, view.operation.submittedBy) : requester.seesAll;
}

/** The one answer for an id nobody used and for another grant's operation, so neither tells them apart. */
export function operationNotFound(operationId: string): ServiceFailure {
  return {
    ok: false,
    code: "operation_not_found",
    message: `No operation has the id ${operationId}, and none was compacted under it. Check the id, or submit the task.`,
  };
}

/**
 * Reads an operation (or its tombstone) the requester may see and authenticates it against the
 * journal. A wait for approval that has expired is ended first, so nobody is ever shown it as still
 * approvable.
 */
export async function readAuthenticated(ctx: ServiceContext, operationId: string, requester: Requester = OWNER): Promise<AuthenticatedView | ServiceFailure> {
  const identity = await journalIdentity(ctx);
  if (!identity.ok) return identity;
  const onlySubmittedBy = requester.seesAll ? undefined : requester.submitter;
  let view = await ctx.store.readOperation(operationId.toLowerCase(), onlySubmittedBy);
  if (!visibleTo(view, requester)) return operationNotFound(operationId);
  if (view.kind === "live" && view.operation.phase === "awaiting_approval" && (view.operation.approvalExpiresMs ?? 0) <= (await ctx.store.now())) {
    await ctx.store.expireApprovals(approvalEndReceipt, 100);
    view = await ctx.store.readOperation(operationId.toLowerCase(), onlySubmittedBy);
    if (view === undefined) return operationNotFound(operationId);
  }
  return authenticateView(view, ctx.sealer, identity.journalId);
}

export function tombstoneSummary(tombstone: OperationTombstone): TombstoneSummary {
  return {
    phase: tombstone.phase,
    receiptStatus: tombstone.receiptStatus,
    attempts: tombstone.attempts,
    createdAt: new Date(tombstone.createdMs).toISOString(),
    finishedAt: new Date(tombstone.finishedMs).toISOString(),
    compactedAt: new Date(tombstone.compactedMs).toISOString(),
  };
}

/** The standing grant the operation was created under, as its (authenticated) operation_created event records it. */
function grantOf(events: readonly JournalEventRow[]): string | null {
  const created = events.find((event) => event.type === "operation_created");
  if (created?.body === undefined || created.body === null) return null;
  try {
    const grant = (JSON.parse(created.body) as { grant?: unknown }).grant;
    return typeof grant === "string" ? grant : null;
  } catch {
    return null;
  }
}

/** The durable state of one operation and its attempt history, both authenticated by the journal; never touches a browser. */
export async function inspectOperation(ctx: ServiceContext, operationId: string, requester: Requester = OWNER): Promise<InspectResult> {
  const view = await readAuthenticated(ctx, operationId, requester);
  if ("ok" in view) return view;
  if (view.kind === "compacted") return { ok: true, status: "compacted", handle: view.handle, compacted: tombstoneSummary(view.tombstone) };
  const op = view.operation;
  const identity = await journalIdentity(ctx);
  if (!identity.ok) return identity;
  const events = await ctx.store.readOperationEvents(op.operationId);
  const attempts = attemptHistory(events, op, ctx.sealer, identity.journalId);
  if (!Array.isArray(attempts)) return tampered(op.operationId, attempts.reason);
  const approval = op.phase === "awaiting_approval" ? await buildApprovalRequest(ctx, op) : undefined;
  if (approval !== undefined && "ok" in approval) return approval;
  return {
    ok: true,
    status: statusOfPhase(op.phase),
    handle: view.handle,
    operation: {
      risk: op.risk,
      attempts: op.attempts,
      maxAttempts: op.maxAttempts,
      receiptStatus: op.receiptStatus,
      cancelRequested: op.cancelRequested,
      createdAt: new Date(op.createdMs).toISOString(),
      updatedAt: new Date(op.updatedMs).toISOString(),
      finishedAt: iso(op.finishedMs),
      runAfter: op.phase === "queued" ? new Date(op.runAfterMs).toISOString() : null,
      leaseOwner: op.phase === "running" ? op.leaseOwner : null,
      leaseExpiresAt: op.phase === "running" ? iso(op.leaseExpiresMs) : null,
      ranUnderGrant: grantOf(events),
    },
    attempts,
    ...(approval === undefined ? {} : { approval }),
  };
}
