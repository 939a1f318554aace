import { authenticateOperationState } from "../../journal/authenticateOperationState.js";
import type { JournalEventRow } from "../../journal/journalTypes.js";
import type { EventRow, OperationRow } from "../rows/operationRows.js";
import { chainHeadOf, stateOf, toEvent } from "../rows/operationRows.js";
import { OperationTamperedError } from "../storeErrors.js";
import { requireWritable, selectHead } from "./journalHeadPg.js";
import type { PgTx } from "./pgContext.js";

/** The operation's newest stored event. */
export async function latestEventOf(tx: PgTx, operationId: string): Promise<JournalEventRow | undefined> {
  const row = await tx.one<EventRow>("SELECT * FROM journal_events WHERE operation_id = $1 ORDER BY seq DESC LIMIT 1", [operationId]);
  return row === undefined ? undefined : toEvent(row);
}

/**
 * The journal's id, once its head says it was written under this store's key and in the format this
 * errand writes (another key is not tampering: it fails as such; see journalHeadPg.requireWritable).
 */
export async function journalIdOf(tx: PgTx): Promise<string> {
  if (tx.ctx.journalId !== undefined) return tx.ctx.journalId;
  const found = await selectHead(tx);
  if (found === undefined) throw new Error("the journal head is missing: the database was not initialized by errand or was damaged");
  const head = requireWritable(tx, found);
  tx.ctx.journalId = head.journalId;
  return head.journalId;
}

/**
 * Why the row cannot be trusted, or null when it matches its latest authenticated event
 * (journal/authenticateOperationState). `known` passes the latest event when the row was read
 * together with it (queries/rowWithLatestEvent).
 */
export async function tamperReason(tx: PgTx, row: OperationRow, known?: { latest: JournalEventRow | undefined }): Promise<string | null> {
  const journalId = await journalIdOf(tx);
  const latest = known === undefined ? await latestEventOf(tx, row.operation_id) : known.latest;
  const verdict = authenticateOperationState(stateOf(row), latest, tx.ctx.sealer, journalId, chainHeadOf(row));
  return verdict.ok ? null : verdict.reason;
}

/** True when the row is authentic; otherwise records the refusal (Store.takeIntegrityRefusals) and returns false. */
export async function isAuthentic(tx: PgTx, row: OperationRow, known?: { latest: JournalEventRow | undefined }): Promise<boolean> {
  const reason = await tamperReason(tx, row, known);
  if (reason === null) return true;
  tx.ctx.refusals.set(row.operation_id, { operationId: row.operation_id, reason });
  return false;
}

/** Throws OperationTamperedError unless the row is authentic (for actions a caller asked for by id). */
export async function requireAuthentic(tx: PgTx, row: OperationRow): Promise<void> {
  const reason = await tamperReason(tx, row);
  if (reason !== null) throw new OperationTamperedError(row.operation_id, reason);
}
