import { buildApprovalRequest } from "./approvalRequest.js";
import { readAuthenticated, tombstoneSummary } from "./inspectOperation.js";
import type { OperationWatch } from "./operationSignals.js";
import type { ServiceContext } from "./serviceContext.js";
import type { CollectOptions, CollectResult, ServiceFailure } from "./serviceTypes.js";
import type { Requester } from "./requester.js";
import { OWNER } from "./requester.js";
import { statusOfPhase } from "./serviceTypes.js";

export const COLLECT_LIMITS = {
  pollIntervalMs: { min: 0, max: 60_000, default: 1_000 },
  timeoutMs: { min: 0, max: 3_600_000, default: 30_000 },
} as const;

/**
 * Returns where the operation stands, with its durable receipt once it is terminal. With `wait`, it
 * answers the moment this process stores the receipt (operationSignals), and looks at the store
 * again every pollIntervalMs for changes made by other processes, until the operation is terminal
 * or timeoutMs passes (it only observes: it never runs the queue). An operation awaiting the owner's approval is answered at once
 * with what the owner is asked (waiting would not help: a person must act). Extracted values and the
 * provider session id of a finished operation come back with every collect, from any process on
 * this store, for ERRAND_RESULT_TTL after it finished (see heldResults).
 */
export async function collectOperation(
  ctx: ServiceContext,
  operationId: string,
  options: CollectOptions = {},
  requester: Requester = OWNER,
): Promise<CollectResult> {
  const poll = checkBound("pollIntervalMs", options.pollIntervalMs, COLLECT_LIMITS.pollIntervalMs);
  if (typeof poll !== "number") return poll;
  const timeout = checkBound("timeoutMs", options.timeoutMs, COLLECT_LIMITS.timeoutMs);
  if (typeof timeout !== "number") return timeout;
  const deadline = Date.now() + timeout;
  // Listening starts before the first read, so a receipt stored in between is not missed.
  const watch = options.wait === true && timeout > 0 ? ctx.signals.watch(operationId) : undefined;
  try {
    return await collectUntil(ctx, operationId, poll, deadline, watch, requester);
  } finally {
    watch?.close();
  }
}

async function collectUntil(
  ctx: ServiceContext,
  operationId: string,
  poll: number,
  deadline: number,
  watch: OperationWatch | undefined,
  requester: Requester,
): Promise<CollectResult> {
  for (;;) {
    const view = await readAuthenticated(ctx, operationId, requester);
    if ("ok" in view) return view;
    if (view.kind === "compacted") {
      return { ok: true, status: statusOfPhase(view.handle.phase), handle: view.handle, compacted: tombstoneSummary(view.tombstone) };
    }
    const status = statusOfPhase(view.operation.phase);
    if (status === "awaiting_approval") {
      const approval = await buildApprovalRequest(ctx, view.operation);
      return "ok" in approval ? approval : { ok: true, status, handle: view.handle, approval };
    }
    if (status !== "pending" || watch === undefined || Date.now() >= deadline) {
      const ephemeral = status === "pending" ? undefined : await ctx.held.read(view.operation);
      return {
        ok: true,
        status,
        handle: view.handle,
        ...(view.receipt === undefined ? {} : { receipt: view.receipt }),
        ...(ephemeral === undefined ? {} : { ephemeral }),
      };
    }
    await watch.wait(Math.max(0, Math.min(poll, deadline - Date.now())));
  }
}

function checkBound(name: string, value: number | undefined, bound: { min: number; max: number; default: number }): number | ServiceFailure {
  if (value === undefined) return bound.default;
  if (!Number.isInteger(value) || value < bound.min || value > bound.max) {
    return { ok: false, code: "invalid_number", message: `${name} must be an integer from ${bound.min} to ${bound.max} (milliseconds), not ${String(value)}.` };
  }
  return value;
}
