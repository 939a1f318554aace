import type { JournalSealer } from "../../journal/createJournalSealer.js";
import type { NewSecretRecord, SecretRecord, SecretStore } from "../SecretStore.js";
import { ensureJournalHead } from "./ensureJournalHead.js";
import { migrate } from "./migrate.js";
import { MIGRATIONS } from "./migrations.js";
import { openDatabaseFile } from "./openDatabaseFile.js";
import { deleteSecret, listSecrets, selectSecret, upsertSecret } from "./queries/secrets/secretSql.js";
import { createSqliteContext } from "./sqliteContext.js";
import { SqliteTransactions } from "./sqliteTransactions.js";

export interface SqliteSecretStoreOptions {
  /** The same database file as the operations store (ERRAND_HOME/errand.db). */
  path: string;
  sealer: JournalSealer;
  busyTimeoutMs: number;
  /** Pre-migration copies a migration leaves beside the file, its own included (ERRAND_KEEP_MIGRATION_BACKUPS). Default 3. */
  keepMigrationBackups?: number;
  busyPatienceMs?: number;
  clock?: () => number;
}

/**
 * Opens the declared-secrets table on its own connection to errand's database. Migrations are
 * shared; a fresh database gets its journal head here too, so `errand secret set` works before
 * any operation was ever submitted.
 */
export function openSqliteSecretStore(options: SqliteSecretStoreOptions): SecretStore {
  const db = openDatabaseFile(options.path, options.busyTimeoutMs);
  try {
    migrate(db, MIGRATIONS, options.path, options.sealer, options.keepMigrationBackups);
    const ctx = createSqliteContext(db, options.sealer, options.clock ?? Date.now);
    db.immediate(() => ensureJournalHead(ctx));
    return new SqliteSecretStore(ctx, options.busyPatienceMs ?? 30_000);
  } catch (error) {
    db.close();
    throw error;
  }
}

class SqliteSecretStore extends SqliteTransactions implements SecretStore {
  putSecret(record: NewSecretRecord): Promise<{ created: boolean; record: SecretRecord }> {
    return this.write(() => upsertSecret(this.ctx, record));
  }
  readSecret(name: string): Promise<SecretRecord | null> {
    return this.read(() => selectSecret(this.ctx, name));
  }
  listSecrets(): Promise<SecretRecord[]> {
    return this.read(() => listSecrets(this.ctx));
  }
  deleteSecret(name: string): Promise<boolean> {
    return this.write(() => deleteSecret(this.ctx, name));
  }
}
