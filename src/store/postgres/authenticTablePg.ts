import type pg from "pg";
import type { JournalSealer } from "../../journal/createJournalSealer.js";
import type { AuthenticTable } from "../rows/authenticRows.js";
import { checkedRow, rowMacOf } from "../rows/authenticRows.js";
import type { PgTx } from "./pgContext.js";

const byKey = (table: AuthenticTable): string => table.key.map((k, i) => `${k} = $${i + 2}`).join(" AND ");

/**
 * Writes the MAC of the row with this key from what the row holds now. Call it in the same
 * transaction, after every INSERT or UPDATE of a table that grants authority; an UPDATE that adds
 * authority must first have read the row and found it authentic (isAuthenticRow), or it would bless
 * whatever was written into it without the key.
 */
export async function sealRow(tx: PgTx, table: AuthenticTable, key: readonly (string | number)[]): Promise<void> {
  const row = await tx.one<Record<string, unknown>>(`SELECT * FROM ${table.table} WHERE ${table.key.map((k, i) => `${k} = $${i + 1}`).join(" AND ")}`, key);
  if (row === undefined) throw new Error(`${table.table}: the row just written is missing`);
  await tx.run(`UPDATE ${table.table} SET mac = $1 WHERE ${byKey(table)}`, [rowMacOf(tx.ctx.sealer, table, row), ...key]);
}

/** The row when it passes its MAC; undefined when there is none or it fails (a failing row grants nothing, and is remembered for AccessStore.takeRowRefusals). */
export function authenticRow<R>(tx: PgTx, table: AuthenticTable, row: R | undefined): R | undefined {
  return checkedRow(tx.ctx.sealer, table, row, tx.ctx.rowRefusals);
}

/**
 * Gives every row of the table its MAC: run once, by the migration that adds the table's mac column,
 * in that migration's transaction (what this trusts is in docs/SECURITY.md, "Rows that grant authority").
 * Unnamed statements: a later migration in the same run may still change the table.
 */
export async function sealAllRows(client: pg.ClientBase, sealer: JournalSealer, table: AuthenticTable): Promise<void> {
  for (const row of (await client.query<Record<string, unknown>>(`SELECT * FROM ${table.table}`)).rows) {
    await client.query(`UPDATE ${table.table} SET mac = $1 WHERE ${byKey(table)}`, [rowMacOf(sealer, table, row), ...table.key.map((k) => row[k])]);
  }
}

/** Every row of the table (for findUnauthenticRows). */
export function allRows(tx: PgTx, table: AuthenticTable): Promise<Record<string, unknown>[]> {
  return tx.rows<Record<string, unknown>>(`SELECT * FROM ${table.table}`);
}
