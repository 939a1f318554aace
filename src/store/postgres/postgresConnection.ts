import pg from "pg";
import type { PoolConfig } from "pg";
import { ErrandError } from "../../errors/errandError.js";

/** The PostgreSQL server named by the configuration cannot be reached, or refused errand's login or database. */
export class StoreUnavailableError extends ErrandError {
  declare readonly code: "store_unavailable";
  constructor(message: string) {
    super("store_unavailable", message);
  }
}

/** A database URL errand cannot use (not postgres://, unparseable). Named by the setting it came from. */
export class DatabaseUrlError extends ErrandError {
  declare readonly code: "configuration_error";
  constructor(message: string) {
    super("configuration_error", message);
  }
}

/** Where a database URL came from, for error messages ("ERRAND_DATABASE_URL", "--database-url"). */
export const DATABASE_URL_SOURCE = "ERRAND_DATABASE_URL (or --database-url)";

/** A URL errand accepts as a PostgreSQL database: postgres:// or postgresql://, with a host. */
export function isPostgresUrl(text: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(text);
}

/**
 * The URL without its password, for messages and logs: user@host:port/database.
 * Never prints what the operator put after the colon of the user name.
 */
export function describeDatabaseUrl(text: string): string {
  try {
    const url = new URL(text);
    const user = url.username === "" ? "" : `${decodeURIComponent(url.username)}@`;
    return `postgres://${user}${url.host}${url.pathname}`;
  } catch {
    return "(an unparseable URL)";
  }
}

/** Checks a database URL before anything connects; throws DatabaseUrlError naming the setting and the rule. */
export function checkDatabaseUrl(text: string, source = DATABASE_URL_SOURCE): URL {
  if (!isPostgresUrl(text))
    throw new DatabaseUrlError(
      `${source} must be a postgres:// or postgresql:// URL (for example postgres://errand@db.internal:5432/errand); got a value starting "${text.slice(0, 12)}".`,
    );
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new DatabaseUrlError(
      `${source} is not a valid URL: write it as postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (percent-encode special characters in the password).`,
    );
  }
  if (url.hostname === "" && !url.searchParams.has("host"))
    throw new DatabaseUrlError(`${source} names no host: write it as postgres://USER@HOST[:PORT]/DATABASE.`);
  if (url.pathname === "/" || url.pathname === "")
    throw new DatabaseUrlError(`${source} names no database: add /DATABASE after the host (for example postgres://errand@127.0.0.1:5432/errand).`);
  return url;
}

/** BIGINT (int8) columns hold milliseconds and counts: safe integers, parsed as numbers (pg's default is a string). */
const INT8_OID = 20;
const parseInt8 = (value: string): number => Number(value);
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary"): unknown =>
    oid === INT8_OID ? parseInt8 : (pg.types.getTypeParser as (o: number, f?: string) => unknown)(oid, format)) as typeof pg.types.getTypeParser,
};

export interface PostgresConnectOptions {
  connectionString: string;
  /** A schema to work in instead of public (tests give each store its own); created when absent. */
  schema?: string;
  /** Connections this pool keeps at most (default 10). */
  max?: number;
}

/** A pool on the database: int8 parsed to numbers, an optional search_path, idle errors surfaced on the next query instead of crashing the process. */
export function createPostgresPool(options: PostgresConnectOptions): pg.Pool {
  checkDatabaseUrl(options.connectionString);
  if (options.schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(options.schema))
    throw new DatabaseUrlError(`schema "${options.schema}" must be a lower-case SQL identifier`);
  const config: PoolConfig = {
    connectionString: options.connectionString,
    max: options.max ?? 10,
    idleTimeoutMillis: 10_000,
    connectionTimeoutMillis: 10_000,
    types,
    application_name: "errand",
    ...(options.schema === undefined ? {} : { options: `-c search_path=${options.schema}` }),
  };
  const pool = new pg.Pool(config);
  // An idle connection the server closed (restart, failover) emits here; the next query reconnects or fails with a clear error.
  pool.on("error", () => undefined);
  return pool;
}

/** Connection-level failures (no server, wrong password, no such database) become store_unavailable naming the setting; anything else is returned as is. */
export function translateConnectionError(error: unknown, connectionString: string): unknown {
  if (!(error instanceof Error)) return error;
  const code = (error as { code?: unknown }).code;
  const where = describeDatabaseUrl(connectionString);
  const network = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "EHOSTUNREACH", "ECONNRESET", "ENETUNREACH"]);
  if (typeof code === "string" && network.has(code)) {
    return new StoreUnavailableError(
      `No PostgreSQL server answers at ${where} (${code}), the database named by ${DATABASE_URL_SOURCE}. Start the server or correct the URL.`,
    );
  }
  if (code === "28P01" || code === "28000")
    return new StoreUnavailableError(
      `PostgreSQL at ${where} refused errand's login (${error.message}); check the user and password in ${DATABASE_URL_SOURCE}.`,
    );
  if (code === "3D000")
    return new StoreUnavailableError(`PostgreSQL at ${where} has no such database (${error.message}); create it (createdb) or correct ${DATABASE_URL_SOURCE}.`);
  if (/timeout exceeded when trying to connect|Connection terminated/i.test(error.message)) {
    return new StoreUnavailableError(`PostgreSQL at ${where} did not answer in time (${error.message}); check ${DATABASE_URL_SOURCE} and the server.`);
  }
  return error;
}
