import { ARTIFACT_LIMITS } from "../../../receipt/artifactTypes.js";
import type { ArtifactBatch, StoredArtifact } from "../../ArtifactStore.js";
import { ArtifactRefusedError } from "../../storeErrors.js";
import { applyGuarded, BatchConflict, guard } from "../batchGuard.js";
import type { LibsqlContext } from "../libsqlContext.js";
import { statement } from "../LibsqlClientLike.js";
import { queryRow } from "../libsqlRows.js";
import type { ArtifactRow } from "../../rows/artifactRows.js";
import { storedArtifactOf } from "../../rows/artifactRows.js";

/**
 * Replaces the operation's artifacts with the batch, in one write batch guarded on the operation
 * existing; refuses an unknown operation or a batch over the caps.
 */
export async function putArtifacts(ctx: LibsqlContext, batch: ArtifactBatch): Promise<void> {
  const total = batch.artifacts.reduce((sum, artifact) => sum + artifact.bytes, 0);
  if (batch.artifacts.length > ARTIFACT_LIMITS.operationCount)
    throw new ArtifactRefusedError(
      `${batch.artifacts.length} artifacts for operation ${batch.operationId}; at most ${ARTIFACT_LIMITS.operationCount} are kept per operation.`,
    );
  if (total > ARTIFACT_LIMITS.operationBytes)
    throw new ArtifactRefusedError(
      `${total} bytes of artifacts for operation ${batch.operationId}; at most ${ARTIFACT_LIMITS.operationBytes} are kept per operation.`,
    );
  const now = ctx.clock();
  try {
    await applyGuarded(ctx.client, `keeping the artifacts of ${batch.operationId}`, {
      guards: [guard("EXISTS (SELECT 1 FROM operations WHERE operation_id = ?)", batch.operationId)],
      writes: [
        statement("DELETE FROM artifacts WHERE operation_id = ?", batch.operationId),
        ...batch.artifacts.map((artifact) =>
          statement(
            "INSERT INTO artifacts (operation_id, idx, attempt, media_type, bytes, sha256, sealed, expires_ms, created_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            batch.operationId,
            artifact.index,
            batch.attempt,
            artifact.mediaType,
            artifact.bytes,
            artifact.sha256,
            artifact.sealed,
            batch.expiresMs,
            now,
          ),
        ),
      ],
    });
  } catch (error) {
    if (error instanceof BatchConflict) throw new ArtifactRefusedError(`There is no operation ${batch.operationId} to keep artifacts for.`);
    throw error;
  }
}

/** One artifact, unless absent or expired on the store's clock. */
export async function readArtifact(ctx: LibsqlContext, operationId: string, index: number): Promise<StoredArtifact | undefined> {
  const row = await queryRow<ArtifactRow>(
    ctx.client,
    "SELECT * FROM artifacts WHERE operation_id = ? AND idx = ? AND (expires_ms IS NULL OR expires_ms > ?)",
    operationId,
    index,
    ctx.clock(),
  );
  if (row === undefined) return undefined;
  return storedArtifactOf(row);
}

/** Deletes expired artifacts and those of operations no longer in the store (compacted), in one batch; returns how many. */
export async function dropExpiredArtifacts(ctx: LibsqlContext): Promise<number> {
  const results = await ctx.client.batch(
    [
      statement("DELETE FROM artifacts WHERE expires_ms IS NOT NULL AND expires_ms <= ?", ctx.clock()),
      statement("DELETE FROM artifacts WHERE operation_id NOT IN (SELECT operation_id FROM operations)"),
    ],
    "write",
  );
  return results.reduce((sum, result) => sum + result.rowsAffected, 0);
}
