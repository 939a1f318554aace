import type { ArtifactBatch, ArtifactStore, StoredArtifact } from "../ArtifactStore.js";
import type { PostgresStoreOptions } from "./openPostgresStore.js";
import { openPostgresParts } from "./openPostgresStore.js";
import { PgTransactions } from "./pgTransactions.js";
import { dropExpiredArtifacts, putArtifacts, readArtifact } from "./queries/artifacts.js";

/** Artifacts (evidence screenshots) on PostgreSQL: sealed bytes with their plain size and hash, reachable from every process on the database. */
export function openPostgresArtifactStore(options: PostgresStoreOptions): ArtifactStore {
  const { pool, ctx, ready } = openPostgresParts(options);
  return new PostgresArtifactStore(pool, ctx, ready, options.connectionString, options.busyPatienceMs ?? 30_000);
}

class PostgresArtifactStore extends PgTransactions implements ArtifactStore {
  putArtifacts(batch: ArtifactBatch): Promise<void> {
    return this.write((tx) => putArtifacts(tx, batch));
  }
  readArtifact(operationId: string, index: number): Promise<StoredArtifact | undefined> {
    return this.read((tx) => readArtifact(tx, operationId, index));
  }
  dropExpiredArtifacts(): Promise<number> {
    return this.write((tx) => dropExpiredArtifacts(tx));
  }
}
