import { ARTIFACT_LIMITS } from "../../../receipt/artifactTypes.js";
import type { ArtifactBatch, StoredArtifact } from "../../ArtifactStore.js";
import { ArtifactRefusedError } from "../../storeErrors.js";
import type { PgTx } from "../pgContext.js";
import type { ArtifactRow } from "../../rows/artifactRows.js";
import { storedArtifactOf } from "../../rows/artifactRows.js";

/** Replaces the operation's artifacts with the batch (the operation row locked meanwhile); refuses an unknown operation or a batch over the caps. */
export async function putArtifacts(tx: PgTx, batch: ArtifactBatch): Promise<void> {
  const total = batch.artifacts.reduce((sum, artifact) => sum + artifact.bytes, 0);
  if (batch.artifacts.length > ARTIFACT_LIMITS.operationCount)
    throw new ArtifactRefusedError(
      `${batch.artifacts.length} artifacts for operation ${batch.operationId}; at most ${ARTIFACT_LIMITS.operationCount} are kept per operation.`,
    );
  if (total > ARTIFACT_LIMITS.operationBytes)
    throw new ArtifactRefusedError(
      `${total} bytes of artifacts for operation ${batch.operationId}; at most ${ARTIFACT_LIMITS.operationBytes} are kept per operation.`,
    );
  const known = await tx.one("SELECT 1 FROM operations WHERE operation_id = $1 FOR SHARE", [batch.operationId]);
  if (known === undefined) throw new ArtifactRefusedError(`There is no operation ${batch.operationId} to keep artifacts for.`);
  await tx.run("DELETE FROM artifacts WHERE operation_id = $1", [batch.operationId]);
  for (const artifact of batch.artifacts) {
    await tx.run(
      "INSERT INTO artifacts (operation_id, idx, attempt, media_type, bytes, sha256, sealed, expires_ms, created_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
      [batch.operationId, artifact.index, batch.attempt, artifact.mediaType, artifact.bytes, artifact.sha256, artifact.sealed, batch.expiresMs, tx.now],
    );
  }
}

/** One artifact, unless absent or expired on the store's clock. */
export async function readArtifact(tx: PgTx, operationId: string, index: number): Promise<StoredArtifact | undefined> {
  const row = await tx.one<ArtifactRow>("SELECT * FROM artifacts WHERE operation_id = $1 AND idx = $2 AND (expires_ms IS NULL OR expires_ms > $3)", [
    operationId,
    index,
    tx.now,
  ]);
  if (row === undefined) return undefined;
  return storedArtifactOf(row);
}

/** Deletes expired artifacts and those of operations no longer in the store (compacted); returns how many. */
export async function dropExpiredArtifacts(tx: PgTx): Promise<number> {
  const expired = await tx.run("DELETE FROM artifacts WHERE expires_ms IS NOT NULL AND expires_ms <= $1", [tx.now]);
  const orphaned = await tx.run("DELETE FROM artifacts a WHERE NOT EXISTS (SELECT 1 FROM operations o WHERE o.operation_id = a.operation_id)");
  return expired + orphaned;
}
