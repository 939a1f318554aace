import { operationEvent } from "../../../journal/operationEvent.js";
import type { BoundaryResult, LeaseRef } from "../../Store.js";
import { appendJournalEvent } from "../appendJournalEvent.js";
import { stateOf, writeOperationRow } from "../operationRowSql.js";
import { isAuthentic } from "../authenticRow.js";
import type { SqliteContext } from "../sqliteContext.js";
import { selectLeasedRow } from "./leaseSql.js";

/**
 * Marks the mutation boundary crossed, fenced by the lease token and refused once a cancel request
 * is recorded. The cancel and the crossing are serialized by the write lock: whichever commits first
 * decides, so a cancel acknowledged as "cancel_requested" can never be followed by a dispatched write.
 * A row that no longer matches its journal is refused like a lost lease: nothing may be dispatched.
 */
export function crossMutationBoundary(ctx: SqliteContext, lease: LeaseRef): BoundaryResult {
  const row = selectLeasedRow(ctx, lease);
  if (row === undefined || !isAuthentic(ctx, row)) return "lease_lost";
  if (row.cancel_requested_ms !== null) return "cancel_requested";
  if (row.mutation_boundary === "crossed") return "crossed";
  const now = ctx.clock();
  const next = { ...row, mutation_boundary: "crossed", revision: row.revision + 1, updated_ms: now };
  appendJournalEvent(ctx, operationEvent("mutation_boundary_crossed", stateOf(next), { attempt: row.attempts }), now);
  writeOperationRow(ctx, next);
  return "crossed";
}
