import { chmodSync, existsSync, readdirSync, statSync, unlinkSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { openSqliteDatabase, type SqliteDatabase } from "./sqliteBinding.js";
import { securePrivateDatabase, securePrivateFile } from "../../keys/privateFiles.js";
import { errorMessage } from "../../errors/errorMessage.js";
import { ConfigError } from "../../config/configError.js";

/** What a copy of errand.db holds, as backup and restore report it. */
export interface BackupFacts {
  bytes: number;
  schemaVersion: number;
  operations: number;
  journalEvents: number;
}

/** A backup file errand will not use: not SQLite, damaged, or not an errand database. */
export class BackupError extends ConfigError {}

/**
 * Copies the live database to `destination` as one read snapshot (the binding's backup, VACUUM
 * INTO): a consistent copy while runners and the server keep writing, renamed into place whole.
 * The destination must not exist; it is created 0600, as errand.db is. Nothing of keys/ is copied.
 */
export async function backupSqliteDatabase(source: string, destination: string): Promise<BackupFacts> {
  if (!existsSync(source)) throw new BackupError(`There is no database at ${source} to back up.`);
  if (existsSync(destination)) throw new BackupError(`${destination} already exists; errand never overwrites a file with a backup. Choose a new name.`);
  securePrivateFile(destination);
  const db = openSqliteDatabase(source, { readonly: true, fileMustExist: true });
  try {
    await db.backup(destination);
  } finally {
    db.close();
  }
  chmodSync(destination, 0o600);
  return inspectSqliteCopy(destination);
}

/** Opens a copy read-only and checks it is an intact errand database; throws BackupError when not. */
export function inspectSqliteCopy(path: string): BackupFacts {
  let db: SqliteDatabase;
  try {
    db = openSqliteDatabase(path, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new BackupError(`${path} cannot be opened as an SQLite database (${errorMessage(error)}).`);
  }
  try {
    const integrity = db.pragma("integrity_check", { simple: true }) as string;
    if (integrity !== "ok") throw new BackupError(`${path} is damaged: ${integrity}`);
    const count = (sql: string): number => db.prepare<[], { n: number }>(sql).get()?.n ?? 0;
    let schemaVersion: number;
    try {
      schemaVersion = count("SELECT coalesce(max(version), 0) AS n FROM schema_migrations");
      return {
        bytes: statSync(path).size,
        schemaVersion,
        operations: count("SELECT count(*) AS n FROM operations"),
        journalEvents: count("SELECT count(*) AS n FROM journal_events"),
      };
    } catch (error) {
      if (error instanceof BackupError) throw error;
      throw new BackupError(`${path} is an SQLite database but not errand's (${errorMessage(error)}).`);
    }
  } catch (error) {
    if (error instanceof BackupError) throw error;
    throw new BackupError(`${path} is damaged: ${errorMessage(error)}`);
  } finally {
    db.close();
  }
}

/**
 * Restores a backup as `destination` (ERRAND_HOME/errand.db), which must not exist: restoring over
 * a live database would lose whatever it holds. The copy is checked first and written the same
 * way (renamed into place once complete), so a half-written restore never looks like a database; its mode is 0600.
 */
export async function restoreSqliteDatabase(backup: string, destination: string): Promise<BackupFacts> {
  const facts = inspectSqliteCopy(backup);
  if (existsSync(destination))
    throw new BackupError(`${destination} already exists; restore only into a home without a database (move the old one away first).`);
  securePrivateDatabase(destination);
  const db = openSqliteDatabase(backup, { readonly: true, fileMustExist: true });
  try {
    await db.backup(destination);
  } finally {
    db.close();
  }
  securePrivateDatabase(destination);
  return { ...facts, bytes: statSync(destination).size };
}

/** How many pre-migration copies a migration leaves when nothing says otherwise (ERRAND_KEEP_MIGRATION_BACKUPS). */
export const DEFAULT_KEEP_MIGRATION_BACKUPS = 3;

/**
 * Before a migration changes an existing database, a consistent copy goes next to it
 * (`errand.db.pre-v<N>-<time>-<pid>.bak`, 0600) with VACUUM INTO, run synchronously inside the
 * migrator's connection; then older copies beyond `keep` are deleted (pruneMigrationBackups).
 * Returns the copy's path.
 */
export function backupBeforeMigration(db: SqliteDatabase, path: string, targetVersion: number, keep = DEFAULT_KEEP_MIGRATION_BACKUPS): string {
  const copy = `${path}.pre-v${targetVersion}-${new Date().toISOString().replace(/[:.]/g, "")}-${process.pid}.bak`;
  db.prepare("VACUUM INTO ?").run(copy);
  chmodSync(copy, 0o600);
  pruneMigrationBackups(path, copy, keep);
  return copy;
}

/** `errand.db.pre-v12-2026-12-02T101010123Z-4242.bak`: the version, the UTC time it was taken, the pid. */
const MIGRATION_COPY = /^\.pre-v(\d{1,6})-(\d{4}-\d{2}-\d{2}T\d{9}Z)-(\d{1,10})\.bak$/;

/**
 * Leaves the `keep` newest pre-migration copies of `path` (by the time in their names) and deletes
 * the rest. The copy just made (`justMade`) always stays, whatever its time says (a clock set back),
 * and counts as one of `keep`. Only files named exactly as backupBeforeMigration names them are
 * touched: an operator's own copies and `errand backup` files never match. A copy that cannot be
 * deleted is left (the migration has succeeded; a spare copy costs only space). Returns the deleted paths.
 */
export function pruneMigrationBackups(path: string, justMade: string, keep: number): string[] {
  const folder = dirname(path);
  const prefix = basename(path);
  const copies: { copy: string; taken: string; version: number }[] = [];
  for (const name of readdirSync(folder)) {
    const match = name.startsWith(prefix) ? MIGRATION_COPY.exec(name.slice(prefix.length)) : null;
    const copy = join(folder, name);
    if (match !== null && copy !== justMade) copies.push({ copy, taken: match[2] ?? "", version: Number(match[1]) });
  }
  // Newest first: the names' times are UTC with fixed widths, so they sort as text; within one
  // millisecond the copy before the higher version is the later one.
  copies.sort((a, b) => b.taken.localeCompare(a.taken) || b.version - a.version || b.copy.localeCompare(a.copy));
  const deleted: string[] = [];
  for (const { copy } of copies.slice(Math.max(0, keep - 1))) {
    try {
      unlinkSync(copy);
      deleted.push(copy);
    } catch {
      // Left in place: see the doc comment.
    }
  }
  return deleted;
}
