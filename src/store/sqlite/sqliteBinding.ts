import { closeSync, constants, existsSync, fsyncSync, openSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { SqliteBindingError } from "../storeErrors.js";

/**
 * The one file that knows which SQLite binding errand runs on: libsql, whose prebuilt Node-API
 * binaries arrive as optional dependencies, so an install needs no build and no install script, and
 * the same files load on Node 20, 22, 24 and 26. Everything else in the store sees only the small
 * interface below. Where libsql departs from what the store relies on, this file makes it hold:
 * rows are plain column objects (libsql adds a `_metadata` field to single rows and returns BLOBs
 * read in bulk as ArrayBuffer), a value SQLite cannot bind is refused with a TypeError (libsql
 * aborts the process on a boolean and misreads a lone Buffer or null as named parameters),
 * read-only and must-exist are enforced (libsql ignores both), transactions nest as savepoints,
 * and a backup is a VACUUM INTO copy synced to disk and renamed into place whole.
 */

/** What a write statement reports. */
export interface SqliteRunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

/** The values SQLite binds: positional parameters, or one object of named ones. */
type Params<P> = P extends unknown[] ? P : [P];

/** A prepared statement; `R` is the row shape the caller expects. */
export interface SqliteStatement<P extends unknown[] | object = unknown[], R = unknown> {
  /** Whether the statement returns rows (a SELECT, a PRAGMA that reads, or a RETURNING clause). */
  readonly reader: boolean;
  run(...params: Params<P>): SqliteRunResult;
  get(...params: Params<P>): R | undefined;
  all(...params: Params<P>): R[];
}

/** One connection to one database file. */
export interface SqliteDatabase {
  /** The file this connection opened, as it was given. */
  readonly path: string;
  readonly open: boolean;
  prepare<P extends unknown[] | object = unknown[], R = unknown>(sql: string): SqliteStatement<P, R>;
  exec(sql: string): void;
  /** `PRAGMA source`: its rows, or with `simple` the first column of the first row. */
  pragma(source: string, options?: { simple?: boolean }): unknown;
  /** Runs `step` in BEGIN IMMEDIATE (a savepoint when already inside a transaction); rolls back when it throws. */
  immediate<T>(step: () => T): T;
  /** Runs `step` in BEGIN DEFERRED (one read snapshot; a savepoint when nested). */
  deferred<T>(step: () => T): T;
  /**
   * Runs an asynchronous `step` in BEGIN IMMEDIATE and commits when it resolves, rolls back when it
   * rejects. Only for a connection nothing else uses until it settles: every statement issued on it
   * meanwhile is part of the transaction. Not nestable. BEGIN's own SQLITE_BUSY is thrown at once
   * (synchronously), so a caller can retry it (busyRetry).
   */
  immediateAsync<T>(step: () => Promise<T>): Promise<T>;
  /** A consistent copy of the whole database at `destination` (absent or an empty placeholder), synced and renamed into place whole. */
  backup(destination: string): Promise<void>;
  close(): void;
}

export interface SqliteOpenOptions {
  /** Refuse every write on this connection. */
  readonly?: boolean;
  /** Fail when the file does not exist instead of creating it. */
  fileMustExist?: boolean;
  /** How long a statement waits for another connection's lock before SQLITE_BUSY, in ms. */
  timeout?: number;
}

interface NativeStatement {
  readonly reader: boolean;
  run(params: unknown): SqliteRunResult;
  get(params: unknown): unknown;
  all(params: unknown): unknown[];
  raw(toggle?: boolean): NativeStatement;
}
interface NativeDatabase {
  readonly open: boolean;
  readonly inTransaction: boolean;
  prepare(sql: string): NativeStatement;
  exec(sql: string): void;
  close(): void;
}
type NativeConstructor = new (path: string, options: { timeout: number }) => NativeDatabase;

let nativeConstructor: NativeConstructor | undefined;

function loadNative(): NativeConstructor {
  if (nativeConstructor !== undefined) return nativeConstructor;
  try {
    nativeConstructor = createRequire(import.meta.url)("libsql") as NativeConstructor;
    return nativeConstructor;
  } catch (error) {
    const reason = error instanceof Error ? (error.message.split("\n")[0] ?? error.message) : String(error);
    throw new SqliteBindingError(
      `errand's SQLite binding (libsql) did not load on Node ${process.version} (${process.platform}-${process.arch}): ${reason}. ` +
        `Run \`npm ci\` again with this Node so npm installs the prebuilt @libsql package for this platform (optional dependencies must not be omitted), or set ERRAND_DATABASE_URL to use PostgreSQL.`,
    );
  }
}

/** Opens the database at `path`; throws SqliteBindingError when the binding cannot load on this Node. */
export function openSqliteDatabase(path: string, options: SqliteOpenOptions = {}): SqliteDatabase {
  const Native = loadNative();
  if (options.fileMustExist === true && !existsSync(path)) {
    throw Object.assign(new Error(`unable to open database file: ${path} does not exist`), { code: "SQLITE_CANTOPEN" });
  }
  const native = new Native(path, { timeout: options.timeout ?? 5000 });
  const readonly = options.readonly === true;
  if (readonly) native.exec("PRAGMA query_only = ON");
  return new LibsqlDatabase(native, path, readonly);
}

function bindable(value: unknown): unknown {
  if (value === null || typeof value === "string" || typeof value === "number" || typeof value === "bigint") return value;
  if (value instanceof Uint8Array) return Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  throw new TypeError(`SQLite can only bind numbers, strings, bigints, buffers and null (got ${value === undefined ? "undefined" : typeof value})`);
}

function isNamedParameters(params: unknown[]): params is [Record<string, unknown>] {
  const first = params[0];
  return params.length === 1 && typeof first === "object" && first !== null && !(first instanceof Uint8Array) && !Array.isArray(first);
}

/** What libsql is handed: always an array or a plain object, never a lone value it would misread. */
function nativeParams(params: unknown[]): unknown {
  if (isNamedParameters(params)) {
    const named: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(params[0])) named[key] = bindable(value);
    return named;
  }
  return params.map(bindable);
}

function plainRow(row: unknown): unknown {
  if (row === null || typeof row !== "object") return row;
  const record = row as Record<string, unknown>;
  const plain: Record<string, unknown> = {};
  for (const key of Object.keys(record)) {
    if (key === "_metadata") continue;
    const value = record[key];
    plain[key] = value instanceof ArrayBuffer ? Buffer.from(value) : value;
  }
  return plain;
}

function syncPath(path: string, flags: string): void {
  const fd = openSync(path, flags);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

class LibsqlStatement<P extends unknown[] | object, R> implements SqliteStatement<P, R> {
  constructor(private readonly native: NativeStatement) {}

  get reader(): boolean {
    return this.native.reader;
  }

  run(...params: Params<P>): SqliteRunResult {
    const result = this.native.run(nativeParams(params));
    return { changes: result.changes, lastInsertRowid: result.lastInsertRowid };
  }

  get(...params: Params<P>): R | undefined {
    const row = this.native.get(nativeParams(params));
    return row === undefined ? undefined : (plainRow(row) as R);
  }

  all(...params: Params<P>): R[] {
    return this.native.all(nativeParams(params)).map((row) => plainRow(row) as R);
  }
}

class LibsqlDatabase implements SqliteDatabase {
  private savepoints = 0;

  constructor(
    private readonly native: NativeDatabase,
    readonly path: string,
    private readonly readonly: boolean,
  ) {}

  get open(): boolean {
    return this.native.open;
  }

  prepare<P extends unknown[] | object = unknown[], R = unknown>(sql: string): SqliteStatement<P, R> {
    return new LibsqlStatement<P, R>(this.native.prepare(sql));
  }

  exec(sql: string): void {
    this.native.exec(sql);
  }

  pragma(source: string, options: { simple?: boolean } = {}): unknown {
    const statement = this.native.prepare(`PRAGMA ${source}`);
    if (options.simple === true) return (statement.raw(true).get([]) as unknown[] | undefined)?.[0];
    return statement.all([]).map(plainRow);
  }

  immediate<T>(step: () => T): T {
    return this.transaction("BEGIN IMMEDIATE", step);
  }

  deferred<T>(step: () => T): T {
    return this.transaction("BEGIN DEFERRED", step);
  }

  immediateAsync<T>(step: () => Promise<T>): Promise<T> {
    if (this.native.inTransaction) throw new Error("immediateAsync cannot run inside another transaction");
    this.native.exec("BEGIN IMMEDIATE");
    return (async () => {
      try {
        const result = await step();
        this.native.exec("COMMIT");
        return result;
      } catch (error) {
        if (this.native.inTransaction) this.native.exec("ROLLBACK");
        throw error;
      }
    })();
  }

  private transaction<T>(begin: string, step: () => T): T {
    if (this.native.inTransaction) return this.savepoint(step);
    this.native.exec(begin);
    try {
      const result = step();
      this.native.exec("COMMIT");
      return result;
    } catch (error) {
      if (this.native.inTransaction) this.native.exec("ROLLBACK");
      throw error;
    }
  }

  private savepoint<T>(step: () => T): T {
    const name = `errand_${++this.savepoints}`;
    this.native.exec(`SAVEPOINT ${name}`);
    try {
      const result = step();
      this.native.exec(`RELEASE ${name}`);
      return result;
    } catch (error) {
      if (this.native.inTransaction) this.native.exec(`ROLLBACK TO ${name}; RELEASE ${name}`);
      throw error;
    } finally {
      this.savepoints--;
    }
  }

  backup(destination: string): Promise<void> {
    // VACUUM INTO is a consistent snapshot, but a copy cut short by a crash is a damaged file: it
    // is written beside the destination, synced, and only then renamed into place, so the
    // destination is either absent (or the caller's empty placeholder) or a complete database.
    const partial = `${destination}.partial-${process.pid}`;
    closeSync(openSync(partial, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600));
    try {
      // VACUUM INTO writes only the new file, so a read-only connection may make it.
      if (this.readonly) this.native.exec("PRAGMA query_only = OFF");
      try {
        this.native.prepare("VACUUM INTO ?").run([partial]);
      } finally {
        if (this.readonly) this.native.exec("PRAGMA query_only = ON");
      }
      syncPath(partial, "r+");
      renameSync(partial, destination);
      syncPath(dirname(destination), "r");
    } catch (error) {
      rmSync(partial, { force: true });
      throw error;
    }
    return Promise.resolve();
  }

  close(): void {
    if (this.native.open) this.native.close();
  }
}
