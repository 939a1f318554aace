import type { FileStore, NewOwnerFile, OwnerFileInfo, StoredOwnerFile } from "../FileStore.js";
import type { JournalSealer } from "../../journal/createJournalSealer.js";
import { migrate } from "./migrate.js";
import { MIGRATIONS } from "./migrations.js";
import { openDatabaseFile } from "./openDatabaseFile.js";
import { listOwnerFiles, putOwnerFile, readOwnerFile, removeOwnerFile } from "./queries/files/ownerFileSql.js";
import { createSqliteContext } from "./sqliteContext.js";
import { SqliteTransactions } from "./sqliteTransactions.js";

export interface SqliteFileStoreOptions {
  /** The same database file as the operations store (ERRAND_HOME/errand.db). */
  path: string;
  sealer: JournalSealer;
  busyTimeoutMs: number;
  /** Pre-migration copies a migration leaves beside the file, its own included (ERRAND_KEEP_MIGRATION_BACKUPS). Default 3. */
  keepMigrationBackups?: number;
  busyPatienceMs?: number;
  clock?: () => number;
}

/** Opens the owner's upload files on their own connection to errand's database (migrations are shared). */
export function openSqliteFileStore(options: SqliteFileStoreOptions): FileStore {
  const db = openDatabaseFile(options.path, options.busyTimeoutMs);
  try {
    migrate(db, MIGRATIONS, options.path, options.sealer, options.keepMigrationBackups);
    return new SqliteFileStore(createSqliteContext(db, options.sealer, options.clock ?? Date.now), options.busyPatienceMs ?? 30_000);
  } catch (error) {
    db.close();
    throw error;
  }
}

class SqliteFileStore extends SqliteTransactions implements FileStore {
  putFile(file: NewOwnerFile): Promise<{ created: boolean }> {
    return this.write(() => putOwnerFile(this.ctx, file));
  }
  readFile(name: string): Promise<StoredOwnerFile | null> {
    return this.read(() => readOwnerFile(this.ctx, name));
  }
  listFiles(): Promise<OwnerFileInfo[]> {
    return this.read(() => listOwnerFiles(this.ctx));
  }
  removeFile(name: string): Promise<boolean> {
    return this.write(() => removeOwnerFile(this.ctx, name));
  }
}
