import { authenticateOperationState } from "../../journal/authenticateOperationState.js";
import type { JournalEventRow } from "../../journal/journalTypes.js";
import { OperationTamperedError } from "../storeErrors.js";
import { requireHead } from "./journalHeadSql.js";
import type { EventRow, OperationRow } from "../rows/operationRows.js";
import { chainHeadOf, stateOf, toEvent } from "../rows/operationRows.js";
import type { SqliteContext } from "./sqliteContext.js";

/** The operation's newest stored event. */
export function latestEventOf(ctx: SqliteContext, operationId: string): JournalEventRow | undefined {
  const row = ctx.sql("SELECT * FROM journal_events WHERE operation_id = ? ORDER BY seq DESC LIMIT 1").get(operationId) as EventRow | undefined;
  return row === undefined ? undefined : toEvent(row);
}

/**
 * The journal's id, once its head says it was written under this store's key and in the format this
 * errand writes (another key is not tampering: it fails as such; see journalHeadSql.requireHead).
 */
export function journalIdOf(ctx: SqliteContext): string {
  if (ctx.journalId !== undefined) return ctx.journalId;
  const head = requireHead(ctx);
  ctx.journalId = head.journalId;
  return head.journalId;
}

/** Why the row cannot be trusted, or null when it matches its latest authenticated event. */
export function tamperReason(ctx: SqliteContext, row: OperationRow): string | null {
  const verdict = authenticateOperationState(stateOf(row), latestEventOf(ctx, row.operation_id), ctx.sealer, journalIdOf(ctx), chainHeadOf(row));
  return verdict.ok ? null : verdict.reason;
}

/** True when the row is authentic; otherwise records the refusal (see Store.takeIntegrityRefusals) and returns false. */
export function isAuthentic(ctx: SqliteContext, row: OperationRow): boolean {
  const reason = tamperReason(ctx, row);
  if (reason === null) return true;
  ctx.refusals.set(row.operation_id, { operationId: row.operation_id, reason });
  return false;
}

/** Throws OperationTamperedError unless the row is authentic (for actions a caller asked for by id). */
export function requireAuthentic(ctx: SqliteContext, row: OperationRow): void {
  const reason = tamperReason(ctx, row);
  if (reason !== null) throw new OperationTamperedError(row.operation_id, reason);
}
