import type { OperationRecord } from "./operationRecord.js";
import type { Transition } from "./operationTransitions.js";
import { reopen } from "./operationTransitions.js";

/**
 * A blocked operation reopened for the same request again (the caller judged its authenticated
 * receipt at `expectedRevision`): the reopen transition while it is still blocked at that revision,
 * undefined once anything changed it since (a concurrent change wins) or when there is no live row.
 */
export function decideReopen(
  operation: OperationRecord | undefined,
  expectedRevision: number,
  at: number,
  extraAttempts: number,
  reason: string,
): Transition | undefined {
  if (operation === undefined || operation.phase !== "blocked" || operation.revision !== expectedRevision) return undefined;
  return reopen(operation, at, extraAttempts, reason);
}
