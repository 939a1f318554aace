import type { RuntimeConfig } from "../config/runtimeConfig.js";
import { databaseBackendOf } from "../config/databaseUrl.js";
import type { LibsqlClientLike } from "../store/libsql/LibsqlClientLike.js";
import { describeDatabaseUrl } from "../store/postgres/postgresConnection.js";
import { sqliteStorePath } from "../store/sqlite/sqliteStorePath.js";

/**
 * Where errand keeps its state: the embedded SQLite file in ERRAND_HOME (the default); the
 * PostgreSQL database ERRAND_DATABASE_URL / --database-url names (many runners on many machines);
 * or a libSQL database (a `file:` database or a libSQL server by URL, or the client a platform hands
 * errand, such as Val Town's std/sqlite): the store of a host with no lasting file system.
 */
export type StoreLocation =
  | { backend: "sqlite"; path: string; busyTimeoutMs: number; /** ERRAND_KEEP_MIGRATION_BACKUPS (default 3). */ keepMigrationBackups?: number }
  | { backend: "postgres"; url: string; schema?: string }
  | {
      backend: "libsql";
      /** The database's URL (file:, libsql://, https://), or how a platform's client is named in messages. */
      url: string;
      /** The platform's own client (Val Town's std/sqlite); absent, errand opens `url` with @libsql/client. */
      client?: LibsqlClientLike;
      /** The libSQL server's token (ERRAND_DATABASE_AUTH_TOKEN), for libsql:// and https:// URLs. */
      authToken?: string;
    };

export function storeLocationFor(config: RuntimeConfig, env: Readonly<Record<string, string | undefined>> = {}): StoreLocation {
  if (config.databaseUrl === null) {
    return {
      backend: "sqlite",
      path: sqliteStorePath(config.errandHome),
      busyTimeoutMs: config.busyTimeoutMs,
      keepMigrationBackups: config.keepMigrationBackups,
    };
  }
  if (databaseBackendOf(config.databaseUrl) === "libsql") {
    const authToken = env["ERRAND_DATABASE_AUTH_TOKEN"];
    return { backend: "libsql", url: config.databaseUrl, ...(authToken === undefined || authToken === "" ? {} : { authToken }) };
  }
  return { backend: "postgres", url: config.databaseUrl };
}

/** The location for people: the file path, or the database URL without its password or token. */
export function describeStoreLocation(location: StoreLocation): string {
  switch (location.backend) {
    case "sqlite":
      return location.path;
    case "postgres":
      return describeDatabaseUrl(location.url) + (location.schema === undefined ? "" : ` (schema ${location.schema})`);
    case "libsql":
      return describeLibsqlUrl(location.url);
  }
}

function describeLibsqlUrl(text: string): string {
  if (text.startsWith("file:")) return text.split("?")[0] ?? text;
  try {
    const url = new URL(text);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return text.includes("://") ? "(an unparseable URL)" : text;
  }
}
