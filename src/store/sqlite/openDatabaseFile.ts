import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { openSqliteDatabase, type SqliteDatabase } from "./sqliteBinding.js";
import { securePrivateDatabase } from "../../keys/privateFiles.js";

/**
 * Opens one connection to errand's database file the way every SQLite store does: the directory is
 * created when absent (0700), the file is created 0600 before SQLite touches it (so its -wal and
 * -shm files get 0600 too) and looser modes left by an older run are tightened; then WAL and
 * synchronous=FULL, which the opening and migrating commits keep (the store then commits through
 * walGroupSync.ts). The caller migrates and closes it on failure.
 */
export function openDatabaseFile(path: string, busyTimeoutMs: number): SqliteDatabase {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  securePrivateDatabase(path);
  const db = openSqliteDatabase(path, { timeout: busyTimeoutMs });
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = FULL");
    // WAL mode has just created the companions; make sure they carry the main file's mode.
    securePrivateDatabase(path);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
