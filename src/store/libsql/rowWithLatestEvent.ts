import type { JournalEventRow } from "../../journal/journalTypes.js";
import type { EventRow, OperationRow } from "../rows/operationRows.js";
import { toEvent } from "../rows/operationRows.js";
import type { LibsqlResult, LibsqlStatement, LibsqlValue } from "./LibsqlClientLike.js";
import { statement } from "./LibsqlClientLike.js";
import { rowsIn } from "./libsqlRows.js";

/** An operation row with its latest journal event, read by one statement (so the two agree). */
export interface RowWithLatestEvent {
  row: OperationRow;
  latest: JournalEventRow | undefined;
}

const EVENT_COLUMNS = ["seq", "chain_seq", "operation_id", "type", "at_ms", "body", "body_hash", "prev_mac", "mac"] as const;

/**
 * Wraps a SELECT of operation rows so each comes back with its newest event (the one the row is
 * authenticated against) in the same statement: a row and an event read by two statements could
 * straddle another writer's commit and look tampered. `order` re-states the inner ORDER BY on `o`.
 */
export function withLatestEvent(inner: string, order: string, ...args: LibsqlValue[]): LibsqlStatement {
  return statement(
    `SELECT o.*, ${EVENT_COLUMNS.map((c) => `e.${c} AS e_${c}`).join(", ")}
     FROM (${inner}) o
     LEFT JOIN journal_events e ON e.seq = (SELECT max(j.seq) FROM journal_events j WHERE j.operation_id = o.operation_id)
     ${order === "" ? "" : `ORDER BY ${order}`}`,
    ...args,
  );
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

/** The rows of a withLatestEvent result. */
export function rowsWithLatestEventIn(result: LibsqlResult | undefined): RowWithLatestEvent[] {
  return rowsIn<Record<string, unknown>>(result).map(split);
}
