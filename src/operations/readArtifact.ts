import { readAuthenticated } from "./inspectOperation.js";
import type { ArtifactRead } from "./artifactKeeping.js";
import type { ServiceContext } from "./serviceContext.js";
import { statusOfPhase } from "./serviceTypes.js";
import type { Requester } from "./requester.js";
import { OWNER } from "./requester.js";

/**
 * One artifact of a finished operation, read the way collect reads its receipt (the authenticated
 * journal's receipt), opened and checked against that receipt's SHA-256 and size.
 */
export async function readArtifact(ctx: ServiceContext, operationId: string, index: number, requester: Requester = OWNER): Promise<ArtifactRead> {
  if (!Number.isSafeInteger(index) || index < 0)
    return {
      ok: false,
      code: "invalid_number",
      message: `The artifact index is a whole number from 0 (the receipt's artifacts[].index), not ${String(index)}.`,
    };
  const view = await readAuthenticated(ctx, operationId, requester);
  if ("ok" in view) return view;
  if (view.kind === "compacted")
    return {
      ok: false,
      code: "artifact_not_found",
      message: `Operation ${view.handle.operationId} was compacted; its artifacts were deleted with its evidence.`,
    };
  if (view.receipt === undefined || statusOfPhase(view.operation.phase) === "pending") {
    return {
      ok: false,
      code: "artifact_not_found",
      message: `Operation ${view.operation.operationId} has no receipt yet (${view.operation.phase}); collect it first.`,
    };
  }
  if (ctx.artifacts === undefined)
    return { ok: false, code: "artifact_not_found", message: "This errand process keeps no artifacts (it was built without an artifact store)." };
  return ctx.artifacts.read(view.operation, view.receipt, index);
}
