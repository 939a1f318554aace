import { createHash } from "node:crypto";
import { deriveSubkey } from "../keys/loadKey.js";
import type { SealedBox } from "../keys/sealedBox.js";
import { createSealedBox, reseal } from "../keys/sealedBox.js";
import type { ArtifactBytes, ArtifactRecord } from "../receipt/artifactTypes.js";
import type { Receipt } from "../receipt/receiptTypes.js";
import type { ArtifactStore } from "../store/ArtifactStore.js";
import type { OperationRecord } from "../store/Store.js";
import type { EvidenceRetention } from "../task/taskTypes.js";
import type { ServiceFailure } from "./serviceTypes.js";

/**
 * Keeping an operation's artifacts (evidence screenshots) the way its other evidence is kept:
 * with evidenceRetention "minimal" for ERRAND_RESULT_TTL after the attempt (like the held extracted
 * values), with "full" until journal compaction deletes the operation. Never in the clear at rest:
 * AES-256-GCM under the master key's "artifacts" subkey, bound to the operation, its digest, the
 * attempt, the index, the media type and the SHA-256, so bytes moved to another row or relabelled
 * do not open. Served only for the operation's last attempt, only when its authenticated receipt
 * lists the index, and only when the opened bytes hash to what that receipt records.
 */
export interface ArtifactKeeping {
  keep(operationId: string, requestDigest: string, attempt: number, retention: EvidenceRetention, artifacts: readonly ArtifactBytes[]): Promise<void>;
  /** The bytes of artifact `index` of a finished operation whose authenticated receipt is `receipt`. */
  read(operation: OperationRecord, receipt: Receipt, index: number): Promise<ArtifactRead>;
  dropExpired(): Promise<number>;
}

export type ArtifactRead = { ok: true; artifact: ArtifactRecord; data: Buffer } | ServiceFailure;

const PURPOSE = "artifacts";

function associatedData(operationId: string, requestDigest: string, attempt: number, record: Pick<ArtifactRecord, "index" | "mediaType" | "sha256">): string {
  return ["errand/artifact/v1", operationId, requestDigest, String(attempt), String(record.index), record.mediaType, record.sha256].join("\u0000");
}

/** The box artifacts are sealed in under a master key. */
export function artifactsBox(masterKey: Uint8Array): SealedBox {
  return createSealedBox(deriveSubkey(masterKey, PURPOSE));
}

/** An artifact's sealed bytes under the next master key's box (key rotation); throws SealedBoxError when they do not open under `from`. */
export function resealArtifact(
  sealed: string,
  artifact: { operationId: string; requestDigest: string; attempt: number } & Pick<ArtifactRecord, "index" | "mediaType" | "sha256">,
  from: SealedBox,
  to: SealedBox,
): string {
  return reseal(from, to, sealed, associatedData(artifact.operationId, artifact.requestDigest, artifact.attempt, artifact));
}

export function createArtifactKeeping(store: ArtifactStore, masterKey: Uint8Array, ttlMs: number): ArtifactKeeping {
  const box = artifactsBox(masterKey);
  return {
    async keep(operationId, requestDigest, attempt, retention, artifacts) {
      const expiresMs = retention === "full" ? null : (await store.now()) + ttlMs;
      await store.putArtifacts({
        operationId,
        attempt,
        expiresMs,
        artifacts: artifacts.map((a) => ({
          index: a.index,
          mediaType: a.mediaType,
          bytes: a.data.length,
          sha256: a.sha256,
          sealed: box.seal(a.data, associatedData(operationId, requestDigest, attempt, a)),
        })),
      });
    },
    async read(operation, receipt, index) {
      const record = receipt.artifacts?.find((a) => a.index === index);
      const listed =
        receipt.artifacts === undefined || receipt.artifacts.length === 0
          ? "its receipt lists no artifacts"
          : `its receipt lists artifacts 0 to ${receipt.artifacts.length - 1}`;
      if (record === undefined)
        return { ok: false, code: "artifact_not_found", message: `Operation ${operation.operationId} has no artifact ${index}: ${listed}.` };
      const stored = await store.readArtifact(operation.operationId, index);
      if (stored === undefined || stored.attempt !== receipt.attempts) {
        const kept =
          receipt.evidenceRetention === "full"
            ? "was not kept (see the runner's log)"
            : "is no longer kept: with evidenceRetention minimal artifacts are kept for ERRAND_RESULT_TTL after the attempt; use full to keep them until compaction";
        return { ok: false, code: "artifact_not_found", message: `Artifact ${index} of operation ${operation.operationId} ${kept}.` };
      }
      let data: Buffer;
      try {
        data = box.open(stored.sealed, associatedData(operation.operationId, operation.requestDigest, stored.attempt, record));
      } catch {
        return {
          ok: false,
          code: "artifact_mismatch",
          message: `Artifact ${index} of operation ${operation.operationId} does not open under this master key with what its receipt records (moved, edited or another key); it is not served.`,
        };
      }
      const sha256 = createHash("sha256").update(data).digest("hex");
      if (sha256 !== record.sha256 || data.length !== record.bytes) {
        return {
          ok: false,
          code: "artifact_mismatch",
          message: `Artifact ${index} of operation ${operation.operationId} hashes to ${sha256} (${data.length} bytes), not the receipt's ${record.sha256} (${record.bytes} bytes); it is not served.`,
        };
      }
      return { ok: true, artifact: record, data };
    },
    dropExpired: () => store.dropExpiredArtifacts(),
  };
}
