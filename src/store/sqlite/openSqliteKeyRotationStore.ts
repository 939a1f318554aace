import type { JournalSealer } from "../../journal/createJournalSealer.js";
import type { KeyRotationPlan, KeyRotationReport, KeyRotationStore } from "../KeyRotationStore.js";
import { rotateKeyInTransaction } from "../rotateKeyInTransaction.js";
import { busyRetry } from "./busyRetry.js";
import { migrate } from "./migrate.js";
import { MIGRATIONS } from "./migrations.js";
import { openDatabaseFile } from "./openDatabaseFile.js";
import { rekeySql } from "./queries/rekeySql.js";
import { createSqliteContext } from "./sqliteContext.js";

export interface SqliteKeyRotationStoreOptions {
  path: string;
  /** The sealer of the key in force (migrations that MAC rows use it). */
  sealer: JournalSealer;
  busyTimeoutMs: number;
  busyPatienceMs?: number;
  clock?: () => number;
}

/**
 * The key rotation on SQLite: its own connection, on which the whole rotation is one BEGIN IMMEDIATE
 * transaction (every other writer waits, readers keep their snapshot), committed at the end or rolled
 * back on any error. Afterwards reclaimFreedPages rewrites the file and empties the WAL, so the pages
 * that held values sealed under the old key no longer sit in them.
 */
export function openSqliteKeyRotationStore(options: SqliteKeyRotationStoreOptions): KeyRotationStore & { reclaimFreedPages(): Promise<void> } {
  const db = openDatabaseFile(options.path, options.busyTimeoutMs);
  try {
    migrate(db, MIGRATIONS, options.path, options.sealer);
  } catch (error) {
    db.close();
    throw error;
  }
  const clock = options.clock ?? Date.now;
  const patienceMs = options.busyPatienceMs ?? 30_000;
  return {
    async rotateKey(plan: KeyRotationPlan): Promise<KeyRotationReport> {
      // Where a statement seals (events, rows) it does so under the new key; the old one is passed explicitly.
      const ctx = createSqliteContext(db, plan.to, clock);
      return await busyRetry(() => db.immediateAsync(() => rotateKeyInTransaction(rekeySql(ctx), plan)), patienceMs);
    },
    reclaimFreedPages(): Promise<void> {
      db.exec("VACUUM");
      db.pragma("wal_checkpoint(TRUNCATE)");
      return Promise.resolve();
    },
    close(): Promise<void> {
      if (db.open) db.close();
      return Promise.resolve();
    },
  };
}
