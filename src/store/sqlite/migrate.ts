import type { SqliteDatabase } from "./sqliteBinding.js";
import { SchemaTooNewError } from "../storeErrors.js";
import type { JournalSealer } from "../../journal/createJournalSealer.js";
import { sealAllRows } from "./authenticTableSql.js";
import type { Migration } from "./migrations.js";
import { backupBeforeMigration } from "./sqliteBackup.js";

/**
 * Brings the database up to the newest migration this errand knows. Each migration runs in its own
 * BEGIN IMMEDIATE transaction together with the row that records it, so a crash leaves either both
 * or neither, and two processes opening a fresh file at once apply each migration exactly once.
 * A database recorded at a higher version than `migrations` knows is refused before anything runs;
 * one recorded at a lower version (holding data) is first copied next to itself, and only the
 * `keepBackups` newest such copies are left (sqliteBackup; default DEFAULT_KEEP_MIGRATION_BACKUPS).
 * A migration that authenticates existing rows needs the sealer (the key) and is refused without it
 * when there are rows to authenticate.
 */
export function migrate(db: SqliteDatabase, migrations: readonly Migration[], where: string, sealer?: JournalSealer, keepBackups?: number): number {
  db.exec("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_ms INTEGER NOT NULL)");
  const supported = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  const current = db.prepare<[], { v: number | null }>("SELECT max(version) AS v FROM schema_migrations");
  const record = db.prepare("INSERT INTO schema_migrations (version, name, applied_ms) VALUES (?, ?, ?)");
  const applied = db.prepare<[number], { version: number }>("SELECT version FROM schema_migrations WHERE version = ?");

  const found = current.get()?.v ?? 0;
  if (found > supported) throw new SchemaTooNewError(found, supported, where);
  // A database that holds data and is about to change gets a copy first, so a migration that goes
  // wrong (or a newer errand the operator wants to leave) never costs the journal.
  if (found > 0 && found < supported && where !== ":memory:" && where !== "") backupBeforeMigration(db, where, supported, keepBackups);

  const ordered = [...migrations].sort((a, b) => a.version - b.version);
  for (const migration of ordered) {
    db.immediate(() => {
      const now = current.get()?.v ?? 0;
      if (now > supported) throw new SchemaTooNewError(now, supported, where);
      // Each version is applied when it is missing, not when it is above the highest one recorded:
      // migrations developed side by side may land in either order.
      if (applied.get(migration.version) !== undefined) return;
      db.exec(migration.sql);
      for (const table of migration.authenticates ?? []) {
        if (sealer !== undefined) sealAllRows(db, sealer, table);
        else if (db.prepare(`SELECT 1 FROM ${table.table} LIMIT 1`).get() !== undefined)
          throw new Error(`migration ${migration.version} of ${where} authenticates stored rows and needs the master key`);
      }
      record.run(migration.version, migration.name, Date.now());
    });
  }
  return current.get()?.v ?? 0;
}
