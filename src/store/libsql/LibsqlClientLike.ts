/**
 * The part of a libSQL client this store uses, and nothing more: one statement at a time, or a batch
 * of statements that commits or rolls back whole. It is the interface of `@libsql/client` and of Val
 * Town's std/sqlite (which offers no interactive transaction), so the store runs wherever either is
 * given; only openLibsqlClient.ts creates one.
 */

/** A value a statement binds or a row holds (integers arrive as numbers, the client's default). */
export type LibsqlValue = null | string | number | bigint | ArrayBuffer | Uint8Array;

/** One statement with positional `?` arguments. */
export interface LibsqlStatement {
  sql: string;
  args: LibsqlValue[];
}

/** What a statement returns: its rows as column-named objects, and what a write changed. */
export interface LibsqlResult {
  rows: readonly Readonly<Record<string, unknown>>[];
  rowsAffected: number;
  lastInsertRowid: bigint | undefined;
  columns: readonly string[];
}

/**
 * "write" runs the batch in one write transaction (BEGIN IMMEDIATE); "read" in one read transaction,
 * so several SELECTs see one snapshot. Either way a failing statement rolls the whole batch back.
 */
export type LibsqlBatchMode = "write" | "read";

export interface LibsqlClientLike {
  execute(statement: LibsqlStatement): Promise<LibsqlResult>;
  batch(statements: LibsqlStatement[], mode: LibsqlBatchMode): Promise<LibsqlResult[]>;
  /** Absent where the platform owns the connection (Val Town). */
  close?(): void;
}

/** A statement from its SQL text and arguments. */
export function statement(sql: string, ...args: LibsqlValue[]): LibsqlStatement {
  return { sql, args };
}
