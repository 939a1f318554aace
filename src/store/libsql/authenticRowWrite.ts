import type { AuthenticTable } from "../rows/authenticRows.js";
import { checkedRow, rowMacOf } from "../rows/authenticRows.js";
import { guard } from "./batchGuard.js";
import type { LibsqlContext } from "./libsqlContext.js";
import type { LibsqlStatement, LibsqlValue } from "./LibsqlClientLike.js";
import { statement } from "./LibsqlClientLike.js";

/**
 * Writes of rows that grant authority (store/README.md, "Rows that grant authority"). A batch cannot
 * read a row back between two statements, so the MAC is computed here from the row's values as they
 * will stand, and written with them by the same statement; an update writes every column under the
 * MAC from those values, so nothing edited in the database without the key is carried into the new
 * MAC.
 */

type RowValues = Readonly<Record<string, LibsqlValue>>;

const byKey = (table: AuthenticTable): string => table.key.map((k) => `${k} = ?`).join(" AND ");
const keyValues = (table: AuthenticTable, row: RowValues): LibsqlValue[] => table.key.map((k) => row[k] ?? null);

/** INSERT of a whole row with its MAC. */
export function sealedInsert(ctx: LibsqlContext, table: AuthenticTable, row: RowValues): LibsqlStatement {
  const values: Record<string, LibsqlValue> = { ...row, mac: rowMacOf(ctx.sealer, table, row) };
  const columns = Object.keys(values);
  return statement(
    `INSERT INTO ${table.table} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`,
    ...columns.map((c) => values[c] ?? null),
  );
}

/**
 * INSERT of a whole row with its MAC, or, when its key is taken, the same values over the row there
 * (for single rows replaced whole, like the owner password).
 */
export function sealedUpsert(ctx: LibsqlContext, table: AuthenticTable, row: RowValues): LibsqlStatement {
  const insert = sealedInsert(ctx, table, row);
  const columns = [...Object.keys(row).filter((c) => !table.key.includes(c)), "mac"];
  return statement(
    `${insert.sql} ON CONFLICT (${table.key.join(", ")}) DO UPDATE SET ${columns.map((c) => `${c} = excluded.${c}`).join(", ")}`,
    ...insert.args,
  );
}

/**
 * UPDATE of a row read as `read` (every column), to `read` with `changes`: every column under the MAC,
 * the changed ones and the new MAC. Pair it with rowMacUnchanged(read) so a concurrent write refuses it.
 */
export function sealedUpdate(ctx: LibsqlContext, table: AuthenticTable, readRow: object, changes: RowValues): LibsqlStatement {
  const read = readRow as Readonly<Record<string, unknown>>;
  const after: Record<string, LibsqlValue> = {};
  for (const column of [...table.columns, ...table.optionalColumns]) after[column] = (read[column] ?? null) as LibsqlValue;
  Object.assign(after, changes);
  const keyed = { ...after, ...Object.fromEntries(table.key.map((k) => [k, (read[k] ?? null) as LibsqlValue])) };
  const set = Object.keys(after);
  return statement(
    `UPDATE ${table.table} SET ${[...set, "mac"].map((c) => `${c} = ?`).join(", ")} WHERE ${byKey(table)}`,
    ...set.map((c) => after[c] ?? null),
    rowMacOf(ctx.sealer, table, keyed),
    ...keyValues(table, keyed),
  );
}

/** A guard that holds while the row read as `read` still carries the MAC it was read with (any write through errand changes it). */
export function rowMacUnchanged(table: AuthenticTable, readRow: object): LibsqlStatement {
  const read = readRow as Readonly<Record<string, unknown>>;
  const key = table.key.map((k) => (read[k] ?? null) as LibsqlValue);
  return guard(`EXISTS (SELECT 1 FROM ${table.table} WHERE ${byKey(table)} AND mac IS ?)`, ...key, (read["mac"] ?? null) as LibsqlValue);
}

/** The row when it passes its MAC; undefined when there is none or it fails (then remembered for AccessStore.takeRowRefusals). */
export function authenticRow<R>(ctx: LibsqlContext, table: AuthenticTable, row: R | undefined): R | undefined {
  return checkedRow(ctx.sealer, table, row, ctx.rowRefusals);
}
