import type { ArtifactMediaType } from "../receipt/artifactTypes.js";

/**
 * Where an operation's artifacts (evidence files: screenshots) are kept, apart from the journal:
 * the bytes are too large for an event body and are not evidence the journal must keep. The store
 * sees each artifact sealed (src/operations/artifactKeeping.ts seals and opens them) with its
 * index, media type, size and the SHA-256 of the plain bytes.
 *
 * Rules every backend keeps (test/store/artifactStore.test.ts):
 * - tied to an operation: putArtifacts refuses an operation the store does not hold, and
 *   replaces whatever that operation had (only the last attempt's artifacts are kept);
 * - bounded: more than ARTIFACT_LIMITS.operationCount artifacts or operationBytes plain bytes for
 *   one operation are refused, nothing written;
 * - an expired artifact is never read, and dropExpiredArtifacts deletes expired ones and those
 *   whose operation is gone (journal compaction deletes operation rows; this deletes their bytes).
 */
export interface ArtifactStore {
  /** Milliseconds since the epoch on the store's clock. */
  now(): Promise<number>;
  /** Replaces the operation's artifacts with one attempt's, in one transaction. Throws ArtifactRefusedError. */
  putArtifacts(batch: ArtifactBatch): Promise<void>;
  /** One artifact of the operation, unless absent or expired. */
  readArtifact(operationId: string, index: number): Promise<StoredArtifact | undefined>;
  /** Deletes expired artifacts and the artifacts of operations the store no longer holds; returns how many. */
  dropExpiredArtifacts(): Promise<number>;
  close(): Promise<void>;
}

export interface ArtifactBatch {
  operationId: string;
  attempt: number;
  /** null: kept until the operation is compacted (evidenceRetention full). */
  expiresMs: number | null;
  artifacts: NewArtifact[];
}

export interface NewArtifact {
  index: number;
  mediaType: ArtifactMediaType;
  /** Size of the plain bytes. */
  bytes: number;
  /** Hex SHA-256 of the plain bytes. */
  sha256: string;
  /** The bytes, sealed (see src/keys/sealedBox.ts). */
  sealed: string;
}

export interface StoredArtifact extends NewArtifact {
  operationId: string;
  attempt: number;
  expiresMs: number | null;
  createdMs: number;
}
