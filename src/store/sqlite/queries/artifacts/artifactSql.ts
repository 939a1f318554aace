import { ARTIFACT_LIMITS } from "../../../../receipt/artifactTypes.js";
import type { ArtifactBatch, StoredArtifact } from "../../../ArtifactStore.js";
import { ArtifactRefusedError } from "../../../storeErrors.js";
import type { SqliteContext } from "../../sqliteContext.js";
import type { ArtifactRow } from "../../../rows/artifactRows.js";
import { storedArtifactOf } from "../../../rows/artifactRows.js";

/** Replaces the operation's artifacts with the batch; refuses an unknown operation or a batch over the caps. */
export function putArtifacts(ctx: SqliteContext, batch: ArtifactBatch): void {
  const total = batch.artifacts.reduce((sum, artifact) => sum + artifact.bytes, 0);
  if (batch.artifacts.length > ARTIFACT_LIMITS.operationCount)
    throw new ArtifactRefusedError(
      `${batch.artifacts.length} artifacts for operation ${batch.operationId}; at most ${ARTIFACT_LIMITS.operationCount} are kept per operation.`,
    );
  if (total > ARTIFACT_LIMITS.operationBytes)
    throw new ArtifactRefusedError(
      `${total} bytes of artifacts for operation ${batch.operationId}; at most ${ARTIFACT_LIMITS.operationBytes} are kept per operation.`,
    );
  const known = ctx.sql("SELECT 1 FROM operations WHERE operation_id = ?").get(batch.operationId);
  if (known === undefined) throw new ArtifactRefusedError(`There is no operation ${batch.operationId} to keep artifacts for.`);
  ctx.sql("DELETE FROM artifacts WHERE operation_id = ?").run(batch.operationId);
  const insert = ctx.sql(
    "INSERT INTO artifacts (operation_id, idx, attempt, media_type, bytes, sha256, sealed, expires_ms, created_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const now = ctx.clock();
  for (const artifact of batch.artifacts)
    insert.run(batch.operationId, artifact.index, batch.attempt, artifact.mediaType, artifact.bytes, artifact.sha256, artifact.sealed, batch.expiresMs, now);
}

/** One artifact, unless absent or expired on the store's clock. */
export function readArtifact(ctx: SqliteContext, operationId: string, index: number): StoredArtifact | undefined {
  const row = ctx
    .sql("SELECT * FROM artifacts WHERE operation_id = ? AND idx = ? AND (expires_ms IS NULL OR expires_ms > ?)")
    .get(operationId, index, ctx.clock()) as ArtifactRow | undefined;
  if (row === undefined) return undefined;
  return storedArtifactOf(row);
}

/** Deletes expired artifacts and those of operations no longer in the store (compacted); returns how many. */
export function dropExpiredArtifacts(ctx: SqliteContext): number {
  const expired = ctx.sql("DELETE FROM artifacts WHERE expires_ms IS NOT NULL AND expires_ms <= ?").run(ctx.clock()).changes;
  const orphaned = ctx.sql("DELETE FROM artifacts WHERE operation_id NOT IN (SELECT operation_id FROM operations)").run().changes;
  return expired + orphaned;
}
