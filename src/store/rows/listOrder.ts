/**
 * The orders a list of operations can be read in, as SQL every backend shares: "recent" (the last
 * changed first, for people's lists) or "claim" (the order a runner claims in: due first, then the
 * oldest, then by id), so a runner that looks at a bounded list sees the operations it would claim
 * next, never only the newest.
 */
export type OperationListOrder = "recent" | "claim";

export function operationOrderSql(order: OperationListOrder | undefined): string {
  return order === "claim" ? "run_after_ms, created_ms, operation_id" : "updated_ms DESC, operation_id";
}
