/**
 * Artifacts: evidence files an attempt produced besides its receipt (today: viewport screenshots,
 * task field evidence.screenshots). The receipt lists each one's index, media type, byte size and
 * SHA-256, never its bytes; the bytes are kept by the store (ArtifactStore) for as long as the
 * task's evidenceRetention says, and whoever reads them checks them against the receipt's hash.
 */
export const ARTIFACT_LIMITS = {
  /** Bytes of one image (takeScreenshot steps JPEG quality down to stay under it, or leaves the image out). */
  imageBytes: 1024 * 1024,
  /** Bytes of every artifact of one operation together (only the last attempt's are kept). */
  operationBytes: 2 * 1024 * 1024,
  /** Artifacts of one operation. */
  operationCount: 4,
} as const;

export const ARTIFACT_MEDIA_TYPES = ["image/png", "image/jpeg"] as const;
export type ArtifactMediaType = (typeof ARTIFACT_MEDIA_TYPES)[number];

/** One artifact as the receipt records it. */
export interface ArtifactRecord {
  /** Position in receipt.artifacts, from 0; `errand artifact get ID N` names it. */
  index: number;
  kind: "screenshot";
  /** "final": the page at the attempt's end; "failure": the page when a step failed (evidence.screenshots on_failure or final). */
  moment: "final" | "failure";
  mediaType: ArtifactMediaType;
  bytes: number;
  /** Hex SHA-256 of the bytes. */
  sha256: string;
}

/** An artifact with its bytes, as the executor hands it to the runner (never part of a receipt). */
export interface ArtifactBytes extends ArtifactRecord {
  data: Buffer;
}
