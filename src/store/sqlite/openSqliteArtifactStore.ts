import type { ArtifactBatch, ArtifactStore, StoredArtifact } from "../ArtifactStore.js";
import type { JournalSealer } from "../../journal/createJournalSealer.js";
import { migrate } from "./migrate.js";
import { MIGRATIONS } from "./migrations.js";
import { openDatabaseFile } from "./openDatabaseFile.js";
import { dropExpiredArtifacts, putArtifacts, readArtifact } from "./queries/artifacts/artifactSql.js";
import { createSqliteContext } from "./sqliteContext.js";
import { SqliteTransactions } from "./sqliteTransactions.js";

export interface SqliteArtifactStoreOptions {
  /** The same database file as the operations store (ERRAND_HOME/errand.db). */
  path: string;
  /** Unused by artifacts (they append no journal event); the shared context carries it. */
  sealer: JournalSealer;
  busyTimeoutMs: number;
  /** Pre-migration copies a migration leaves beside the file, its own included (ERRAND_KEEP_MIGRATION_BACKUPS). Default 3. */
  keepMigrationBackups?: number;
  busyPatienceMs?: number;
  clock?: () => number;
}

/** Opens the artifacts table on its own connection to errand's database (migrations are shared). */
export function openSqliteArtifactStore(options: SqliteArtifactStoreOptions): ArtifactStore {
  const db = openDatabaseFile(options.path, options.busyTimeoutMs);
  try {
    migrate(db, MIGRATIONS, options.path, options.sealer, options.keepMigrationBackups);
    return new SqliteArtifactStore(createSqliteContext(db, options.sealer, options.clock ?? Date.now), options.busyPatienceMs ?? 30_000);
  } catch (error) {
    db.close();
    throw error;
  }
}

class SqliteArtifactStore extends SqliteTransactions implements ArtifactStore {
  putArtifacts(batch: ArtifactBatch): Promise<void> {
    return this.write(() => putArtifacts(this.ctx, batch));
  }
  readArtifact(operationId: string, index: number): Promise<StoredArtifact | undefined> {
    return this.read(() => readArtifact(this.ctx, operationId, index));
  }
  dropExpiredArtifacts(): Promise<number> {
    return this.write(() => dropExpiredArtifacts(this.ctx));
  }
}
