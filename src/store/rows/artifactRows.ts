import type { StoredArtifact } from "../ArtifactStore.js";

/** An artifacts row as every SQL backend returns it. */
export interface ArtifactRow {
  operation_id: string;
  idx: number;
  attempt: number;
  media_type: StoredArtifact["mediaType"];
  bytes: number;
  sha256: string;
  sealed: string;
  expires_ms: number | null;
  created_ms: number;
}

/** An artifact from its row. */
export function storedArtifactOf(row: ArtifactRow): StoredArtifact {
  return {
    operationId: row.operation_id,
    index: row.idx,
    attempt: row.attempt,
    mediaType: row.media_type,
    bytes: row.bytes,
    sha256: row.sha256,
    sealed: row.sealed,
    expiresMs: row.expires_ms,
    createdMs: row.created_ms,
  };
}
