import { authenticateOperationState } from "../../journal/authenticateOperationState.js";
import { chainHeadOf, stateOf } from "../rows/operationRows.js";
import { OperationTamperedError } from "../storeErrors.js";
import type { LibsqlContext } from "./libsqlContext.js";
import type { RowWithLatestEvent } from "./rowWithLatestEvent.js";

/** Why the row cannot be trusted, or null when it matches its latest authenticated event. */
export function tamperReason(ctx: LibsqlContext, journalId: string, read: RowWithLatestEvent): string | null {
  const verdict = authenticateOperationState(stateOf(read.row), read.latest, ctx.sealer, journalId, chainHeadOf(read.row));
  return verdict.ok ? null : verdict.reason;
}

/** True when the row is authentic; otherwise records the refusal (Store.takeIntegrityRefusals) and returns false. */
export function isAuthentic(ctx: LibsqlContext, journalId: string, read: RowWithLatestEvent): boolean {
  const reason = tamperReason(ctx, journalId, read);
  if (reason === null) return true;
  ctx.refusals.set(read.row.operation_id, { operationId: read.row.operation_id, reason });
  return false;
}

/** Throws OperationTamperedError unless the row is authentic (for actions a caller asked for by id). */
export function requireAuthentic(ctx: LibsqlContext, journalId: string, read: RowWithLatestEvent): void {
  const reason = tamperReason(ctx, journalId, read);
  if (reason !== null) throw new OperationTamperedError(read.row.operation_id, reason);
}
