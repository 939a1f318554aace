import type { Receipt } from "../receipt/receiptTypes.js";
import type { OperationRecord } from "../store/Store.js";
import { readStoredTask } from "../runner/readStoredTask.js";
import { synthesizeReceipt } from "../runner/synthesizeReceipt.js";
import { makeHandle } from "./handle.js";
import { journalIdentity } from "./journalAccess.js";
import { refusingTampered } from "./refusingTampered.js";
import type { ServiceContext } from "./serviceContext.js";
import type { ControlRequest, ControlResult } from "./serviceTypes.js";
import { statusOfPhase } from "./serviceTypes.js";
import type { Requester } from "./requester.js";
import { OWNER } from "./requester.js";
import { visibleTo } from "./inspectOperation.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Cancels an operation, exactly once per caller-owned controlActionId. A queued operation is
 * cancelled at once. A running one is stopped only while its mutation boundary is not crossed (the
 * boundary can then no longer be crossed); past it, the answer is "uncertain" and the write is left
 * to finish, since interrupting it could not undo anything. A repeated controlActionId returns the
 * first outcome and never acts again. A requester that may not see the operation (another grant's)
 * gets the very answer an unknown id gets, and nothing is changed.
 */
export async function controlOperation(
  ctx: ServiceContext,
  operationId: string,
  request: ControlRequest,
  requester: Requester = OWNER,
): Promise<ControlResult> {
  if (request.action !== "cancel") return { ok: false, code: "invalid_enum", message: `action must be "cancel".` };
  if (!UUID.test(request.controlActionId)) {
    return { ok: false, code: "invalid_operation_id", message: "controlActionId must be a UUID you choose and reuse if you repeat this same request." };
  }
  const identity = await journalIdentity(ctx);
  if (!identity.ok) return identity;

  const notFound = { ok: false as const, code: "operation_not_found" as const, message: `No operation has the id ${operationId}; nothing was cancelled.` };
  // The submitter never changes, so what is checked here still holds inside the cancel's transaction.
  if (!requester.seesAll && !visibleTo(await ctx.store.readOperation(operationId.toLowerCase(), requester.submitter), requester)) return notFound;

  const startedAt = new Date(await ctx.store.now());
  const cancelledReceipt = (operation: OperationRecord, taskJson: string): Receipt =>
    synthesizeReceipt({
      operationId: operation.operationId,
      requestDigest: operation.requestDigest,
      task: readStoredTask(taskJson),
      risk: operation.risk,
      end: { kind: "cancelled" },
      error: { code: "cancelled", message: "The operation was cancelled while it was queued; nothing was run." },
      attempts: operation.attempts,
      mutationBoundary: operation.mutationBoundary,
      provider: "",
      steps: "skipped",
      startedAt,
    });
  const result = await refusingTampered(() => ctx.store.cancelOperation(operationId.toLowerCase(), request.controlActionId.toLowerCase(), cancelledReceipt));
  if ("ok" in result) return result;
  switch (result.kind) {
    case "not_found":
      return notFound;
    case "compacted":
      return {
        ok: false,
        code: "operation_not_found",
        message: `Operation ${operationId} finished (${result.tombstone.receiptStatus ?? result.tombstone.phase}) and was compacted; there is nothing left to cancel.`,
      };
    case "control_id_reused":
      return {
        ok: false,
        code: "identity_mismatch",
        message: `controlActionId ${request.controlActionId} was already used for another request${requester.seesAll ? ` (operation ${result.operationId})` : ""}; choose a new one.`,
      };
    case "applied":
    case "repeated":
      ctx.signals.notify(result.operation.operationId);
      return {
        ok: true,
        status: statusOfPhase(result.operation.phase),
        outcome: result.outcome,
        repeated: result.kind === "repeated",
        handle: makeHandle(result.operation),
      };
  }
}
