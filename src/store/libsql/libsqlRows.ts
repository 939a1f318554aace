import type { LibsqlClientLike, LibsqlResult, LibsqlValue } from "./LibsqlClientLike.js";
import { statement } from "./LibsqlClientLike.js";

/**
 * A result's rows as plain column objects of the shape the caller names (store/rows): the client's
 * rows also answer by index, which no mapping here wants.
 */
export function rowsIn<R>(result: LibsqlResult | undefined): R[] {
  if (result === undefined) throw new Error("a batch returned fewer results than it had statements");
  return result.rows.map((row) => ({ ...row }) as R);
}

/** The first row of a result, if any. */
export function firstRowIn<R>(result: LibsqlResult | undefined): R | undefined {
  return rowsIn<R>(result)[0];
}

/** The rows one statement returns. */
export async function queryRows<R>(client: LibsqlClientLike, sql: string, ...args: LibsqlValue[]): Promise<R[]> {
  return rowsIn<R>(await client.execute(statement(sql, ...args)));
}

/** The first row one statement returns, if any. */
export async function queryRow<R>(client: LibsqlClientLike, sql: string, ...args: LibsqlValue[]): Promise<R | undefined> {
  return (await queryRows<R>(client, sql, ...args))[0];
}

/** `INSERT INTO table (columns) VALUES (?, …)` for the columns of `row`, in its key order, with their values. */
export function insertInto(table: string, row: Readonly<Record<string, LibsqlValue>>): { sql: string; args: LibsqlValue[] } {
  const columns = Object.keys(row);
  return { sql: `INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`, args: columns.map((c) => row[c] ?? null) };
}
