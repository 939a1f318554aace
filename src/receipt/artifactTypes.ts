import { ARTIFACT_DOWNLOAD_COUNT } from "../task/limits.js";

/**
 * Artifacts: evidence files an attempt produced besides its receipt: viewport screenshots (task
 * field evidence.screenshots) and files a step downloaded from one of the task's hosts. The receipt
 * lists each one's index, media type, byte size and SHA-256, never its bytes; the bytes are kept by
 * the store (ArtifactStore) for as long as the task's evidenceRetention says, and whoever reads
 * them checks them against the receipt's hash.
 */
export const ARTIFACT_LIMITS = {
  /** Bytes of one image (takeScreenshot steps JPEG quality down to stay under it, or leaves the image out). */
  imageBytes: 1024 * 1024,
  /** Bytes of an operation's screenshots together; also the bound on the images one errand_collect result carries. */
  screenshotBytes: 2 * 1024 * 1024,
  /** Screenshots of one operation. */
  screenshotCount: 4,
  /** Files kept from one attempt's downloads; later ones are refused and counted. */
  downloadCount: ARTIFACT_DOWNLOAD_COUNT,
  /** The highest ERRAND_DOWNLOAD_MAX_BYTES may be (bytes of one attempt's downloads together). */
  downloadBytesCeiling: 64 * 1024 * 1024,
  /** What the store accepts for one operation, every kind together. */
  operationCount: 8,
  operationBytes: 2 * 1024 * 1024 + 64 * 1024 * 1024,
} as const;

/**
 * Media types an artifact may have: a screenshot's, or what errand recognized from a download's
 * first bytes (never what the site said it was); anything unrecognized is application/octet-stream.
 */
export const ARTIFACT_MEDIA_TYPES = ["image/png", "image/jpeg", "application/pdf", "application/zip", "text/plain", "application/octet-stream"] as const;
export type ArtifactMediaType = (typeof ARTIFACT_MEDIA_TYPES)[number];

interface ArtifactBase {
  /** Position in receipt.artifacts, from 0; `errand artifact get ID N` names it. */
  index: number;
  mediaType: ArtifactMediaType;
  bytes: number;
  /** Hex SHA-256 of the bytes. */
  sha256: string;
}

export interface ScreenshotRecord extends ArtifactBase {
  kind: "screenshot";
  /** "final": the page at the attempt's end; "failure": the page when a step failed (evidence.screenshots on_failure or final). */
  moment: "final" | "failure";
}

/** A file a step downloaded from one of the task's hosts. */
export interface DownloadRecord extends ArtifactBase {
  kind: "download";
  /** Which download of the attempt, from 0, in the order they started; an upload step's {"download": N} names it. */
  download: number;
  /** The last step that acted (a click, a key, a goto...) before the download started; null: before any did. */
  step: number | null;
}

/** One artifact as the receipt records it. */
export type ArtifactRecord = ScreenshotRecord | DownloadRecord;

/** An artifact with its bytes, as the executor hands it to the runner (never part of a receipt). */
export type ArtifactBytes = ArtifactRecord & { data: Buffer };
