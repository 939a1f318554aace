import type { SqliteDatabase } from "./sqliteBinding.js";
import type { JournalSealer } from "../../journal/createJournalSealer.js";
import type { AuthenticTable } from "../rows/authenticRows.js";
import { checkedRow, rowMacOf } from "../rows/authenticRows.js";
import type { SqliteContext } from "./sqliteContext.js";

const byKey = (table: AuthenticTable): string => table.key.map((k) => `${k} = ?`).join(" AND ");

/**
 * Writes the MAC of the row with this key from what the row holds now. Call it in the same
 * transaction, after every INSERT or UPDATE of a table that grants authority; an UPDATE that adds
 * authority must first have read the row and found it authentic (isAuthenticRow), or it would bless
 * whatever was written into it without the key.
 */
export function sealRow(ctx: SqliteContext, table: AuthenticTable, key: readonly (string | number)[]): void {
  const row = ctx.sql(`SELECT * FROM ${table.table} WHERE ${byKey(table)}`).get(...key) as Record<string, unknown> | undefined;
  if (row === undefined) throw new Error(`${table.table}: the row just written is missing`);
  ctx.sql(`UPDATE ${table.table} SET mac = ? WHERE ${byKey(table)}`).run(rowMacOf(ctx.sealer, table, row), ...key);
}

/** The row when it passes its MAC; undefined when there is none or it fails (a failing row grants nothing, and is remembered for AccessStore.takeRowRefusals). */
export function authenticRow<R>(ctx: SqliteContext, table: AuthenticTable, row: R | undefined): R | undefined {
  return checkedRow(ctx.sealer, table, row, ctx.rowRefusals);
}

/**
 * Gives every row of the table its MAC: run once, by the migration that adds the table's mac column,
 * in that migration's transaction (what this trusts is in docs/SECURITY.md, "Rows that grant authority").
 */
export function sealAllRows(db: SqliteDatabase, sealer: JournalSealer, table: AuthenticTable): void {
  const update = db.prepare(`UPDATE ${table.table} SET mac = ? WHERE ${byKey(table)}`);
  for (const row of db.prepare(`SELECT * FROM ${table.table}`).all() as Record<string, unknown>[]) {
    update.run(rowMacOf(sealer, table, row), ...table.key.map((k) => row[k] as string | number));
  }
}

/** Every row of the table (for findUnauthenticRows). */
export function allRows(db: SqliteDatabase, table: AuthenticTable): Record<string, unknown>[] {
  return db.prepare(`SELECT * FROM ${table.table}`).all() as Record<string, unknown>[];
}
