/**
 * Which store a database URL names, decided here and nowhere else. `postgres://` and
 * `postgresql://` name a PostgreSQL server (many runners on many machines); `file:` names a local
 * libSQL database file, and `libsql://`, `http://` and `https://` a libSQL server (sqld, Turso):
 * the store a fetch-handler host (Deno, Val Town) keeps its state in. Anything else is refused, so a
 * typo never falls back quietly to the embedded SQLite file.
 */
export type DatabaseBackend = "postgres" | "libsql";

export function databaseBackendOf(url: string): DatabaseBackend | null {
  if (/^postgres(?:ql)?:\/\//i.test(url)) return "postgres";
  if (/^(?:file:|libsql:\/\/|https?:\/\/)/i.test(url)) return "libsql";
  return null;
}

/** The rule a refused URL broke, in words that name the setting. */
export const DATABASE_URL_RULE =
  "ERRAND_DATABASE_URL must be a postgres:// or postgresql:// URL (PostgreSQL, for example postgres://errand@db.internal:5432/errand), or a libSQL database: file:PATH, libsql://HOST or https://HOST; unset it to use the embedded SQLite database.";
