import type { LibsqlBatchMode, LibsqlClientLike, LibsqlResult, LibsqlStatement, LibsqlValue } from "./LibsqlClientLike.js";

/**
 * An argument as std/sqlite carries it to its server: its requests travel as JSON, which holds text,
 * numbers and null, but no bigint (JSON.stringify throws) and no bytes (a Uint8Array would arrive as
 * an object of indexes).
 */
export type ValTownSqliteArg = string | number | null;

/** One statement as std/sqlite takes it: SQL with positional `?` arguments. */
export interface ValTownSqliteStatement {
  sql: string;
  args: ValTownSqliteArg[];
}

/**
 * What std/sqlite answers for one statement, in either of its shapes: the account-scoped client
 * returns the server's JSON as it is (each row an array of values in column order, lastInsertRowid a
 * string, a number or null), the val-scoped one is an @libsql/client instance (each row answering by
 * column name, lastInsertRowid a bigint or absent).
 */
export interface ValTownSqliteResult {
  columns: readonly string[];
  columnTypes?: readonly string[];
  rows: readonly unknown[];
  rowsAffected: number;
  lastInsertRowid?: string | number | bigint | null;
}

/**
 * The part of Val Town's std/sqlite this adapter uses, declared by shape so that nothing here imports
 * Val Town: `execute` for one statement, `batch` for several run as one transaction that commits or
 * rolls back whole ("deferred" is its third mode, unused here).
 */
export interface ValTownSqlite {
  execute(statement: ValTownSqliteStatement): Promise<ValTownSqliteResult>;
  batch(statements: ValTownSqliteStatement[], mode?: "write" | "read" | "deferred"): Promise<ValTownSqliteResult[]>;
}

/** std/sqlite answered with something that is not a result of the shape above. */
export class ValTownSqliteShapeError extends Error {
  constructor(what: string) {
    super(`std/sqlite returned an unexpected result: ${what}`);
  }
}

/**
 * The libSQL store's client on Val Town's std/sqlite. Statements go out with their arguments in a
 * form JSON carries faithfully; results come back as the store reads them (rows as column-named
 * objects, integers as numbers, lastInsertRowid as a bigint), whichever of std/sqlite's two result
 * shapes arrives. Anything else is refused rather than guessed at. std/sqlite's errors pass through
 * unchanged: their messages carry SQLite's text, which the store's guard and busy checks read. No
 * close: the platform owns the connection.
 */
export function valTownSqliteClient(sqlite: ValTownSqlite): LibsqlClientLike {
  return {
    async execute(statement: LibsqlStatement): Promise<LibsqlResult> {
      return resultFrom(await sqlite.execute(toWire(statement)));
    },
    async batch(statements: LibsqlStatement[], mode: LibsqlBatchMode): Promise<LibsqlResult[]> {
      const results = await sqlite.batch(statements.map(toWire), mode);
      if (!Array.isArray(results) || results.length !== statements.length) {
        throw new ValTownSqliteShapeError(`a batch of ${statements.length} statements answered with ${Array.isArray(results) ? results.length : "no"} results`);
      }
      return results.map(resultFrom);
    },
  };
}

function toWire(statement: LibsqlStatement): ValTownSqliteStatement {
  return { sql: statement.sql, args: statement.args.map(argToWire) };
}

function argToWire(value: LibsqlValue): ValTownSqliteArg {
  if (value === null || typeof value === "string") return value;
  if (typeof value === "number") {
    // JSON writes NaN and the infinities as null: refuse them rather than bind NULL.
    if (!Number.isFinite(value)) throw new RangeError(`std/sqlite cannot carry the number ${value}`);
    return value;
  }
  if (typeof value === "bigint") {
    if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
      throw new RangeError("std/sqlite carries integers as JSON numbers; this one is beyond 2^53");
    }
    return Number(value);
  }
  throw new TypeError("std/sqlite carries no bytes: a BLOB argument cannot be bound through it");
}

function resultFrom(raw: ValTownSqliteResult): LibsqlResult {
  if (typeof raw !== "object" || raw === null) throw new ValTownSqliteShapeError("not an object");
  const { columns, rows } = raw;
  if (!Array.isArray(columns) || !columns.every((c) => typeof c === "string")) throw new ValTownSqliteShapeError("columns are not a list of names");
  if (!Array.isArray(rows)) throw new ValTownSqliteShapeError("rows are not a list");
  if (typeof raw.rowsAffected !== "number" || !Number.isInteger(raw.rowsAffected)) throw new ValTownSqliteShapeError("rowsAffected is not an integer");
  return {
    columns,
    rows: rows.map((row) => rowFrom(row, columns)),
    rowsAffected: raw.rowsAffected,
    lastInsertRowid: rowidFrom(raw.lastInsertRowid),
  };
}

/**
 * A row as a column-named object. An array row is read by position; any other row by column name.
 * When two columns share a name, the first one's value stands, as @libsql/client does.
 */
function rowFrom(row: unknown, columns: readonly string[]): Record<string, unknown> {
  if (typeof row !== "object" || row === null) throw new ValTownSqliteShapeError("a row is not an array or an object");
  const positional = Array.isArray(row);
  const named = row as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  columns.forEach((column, index) => {
    if (Object.hasOwn(out, column)) return;
    const value = positional ? (row as unknown[])[index] : named[column];
    if (value === undefined) throw new ValTownSqliteShapeError(`a row has no value for column ${column}`);
    out[column] = valueFrom(value);
  });
  return out;
}

function valueFrom(value: unknown): LibsqlValue {
  if (value === null || typeof value === "string" || typeof value === "number") return value;
  if (typeof value === "bigint") {
    // A client set to return bigints: the store reads integers as numbers, exact up to 2^53.
    if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) throw new ValTownSqliteShapeError("an integer beyond 2^53");
    return Number(value);
  }
  if (value instanceof ArrayBuffer || value instanceof Uint8Array) return value;
  throw new ValTownSqliteShapeError(`a value of type ${typeof value}`);
}

function rowidFrom(value: ValTownSqliteResult["lastInsertRowid"]): bigint | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "bigint") return value;
  if (typeof value === "number" && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === "string" && /^-?\d{1,19}$/.test(value)) return BigInt(value);
  throw new ValTownSqliteShapeError("lastInsertRowid is not an integer");
}
