import type { JournalEventRow } from "../../../journal/journalTypes.js";
import type { EventRow, OperationRow } from "../../rows/operationRows.js";
import { toEvent } from "../../rows/operationRows.js";
import type { PgTx } from "../pgContext.js";
import { shiftPlaceholders } from "../shiftPlaceholders.js";

/** An operation row as locked, with its latest journal event read in the same statement (the event the row is authenticated against). */
export interface RowWithLatestEvent {
  row: OperationRow;
  latest: JournalEventRow | undefined;
}

const EVENT_COLUMNS = ["seq", "chain_seq", "operation_id", "type", "at_ms", "body", "body_hash", "prev_mac", "mac"] as const;

/**
 * Wraps a SELECT of operation rows (with its FOR UPDATE [SKIP LOCKED]) so each row comes back with
 * its latest event: one round trip instead of two for every row a writer locks and authenticates.
 */
function joined(inner: string): string {
  return `SELECT o.*, ${EVENT_COLUMNS.map((c) => `e.${c} AS e_${c}`).join(", ")}
    FROM (${inner}) o
    LEFT JOIN LATERAL (SELECT * FROM journal_events j WHERE j.operation_id = o.operation_id ORDER BY j.seq DESC LIMIT 1) e ON true`;
}

function split(record: Record<string, unknown>): RowWithLatestEvent {
  const row: Record<string, unknown> = {};
  const event: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (key.startsWith("e_") && (EVENT_COLUMNS as readonly string[]).includes(key.slice(2))) event[key.slice(2)] = value;
    else row[key] = value;
  }
  return {
    row: row as unknown as OperationRow,
    latest: event["seq"] === null || event["seq"] === undefined ? undefined : toEvent(event as unknown as EventRow),
  };
}

export async function selectRowsWithLatestEvent(tx: PgTx, inner: string, values: readonly unknown[]): Promise<RowWithLatestEvent[]> {
  return (await tx.rows<Record<string, unknown>>(joined(inner), values)).map(split);
}

export async function selectRowWithLatestEvent(tx: PgTx, inner: string, values: readonly unknown[]): Promise<RowWithLatestEvent | undefined> {
  return (await selectRowsWithLatestEvent(tx, inner, values))[0];
}

/**
 * Two row selections (each with its FOR UPDATE [SKIP LOCKED]), each row with its latest event, in one
 * statement: the first's rows, then the second's (parameters numbered after the first's). The arms
 * run in that order, so the first's row locks are taken first. For a finishing attempt, which locks
 * its leased row and picks its successor: one round trip instead of two.
 */
export async function selectTwoWithLatestEvent(
  tx: PgTx,
  first: { sql: string; values: readonly unknown[] },
  second: { sql: string; values: readonly unknown[] },
): Promise<{ first: RowWithLatestEvent[]; second: RowWithLatestEvent[] }> {
  const text = `SELECT 1 AS arm, a.* FROM (${joined(first.sql)}) a UNION ALL SELECT 2 AS arm, b.* FROM (${joined(shiftPlaceholders(second.sql, first.values.length))}) b`;
  const rows = await tx.rows<Record<string, unknown>>(text, [...first.values, ...second.values]);
  const result = { first: [] as RowWithLatestEvent[], second: [] as RowWithLatestEvent[] };
  for (const { arm, ...record } of rows) (arm === 1 ? result.first : result.second).push(split(record));
  return result;
}
