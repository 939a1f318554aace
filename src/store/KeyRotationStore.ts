import type { JournalSealer } from "../journal/createJournalSealer.js";
import type { ArtifactMediaType } from "../receipt/artifactTypes.js";
import type { SecretSourceKind } from "./SecretStore.js";

/**
 * A master-key rotation as the store applies it: in ONE transaction, everything kept under the key
 * moves to the next one, or nothing does (store/rotateKeyInTransaction.ts, for both backends). The
 * store never sees a key: it gets the two journal sealers and, for each kind of sealed value, a
 * function that opens it under the old key and seals it under the new one (src/rotation builds them
 * from the modules that own each value's associated data).
 */
export interface KeyRotationStore {
  rotateKey(plan: KeyRotationPlan): Promise<KeyRotationReport>;
  close(): Promise<void>;
}

export interface KeyRotationPlan {
  from: JournalSealer;
  to: JournalSealer;
  reseal: Resealers;
}

/**
 * One function per kind of sealed value: `sealed` opened under the old key with the associated data
 * the fields give, and sealed under the new key with the same. Each throws (SealedBoxError) when the
 * value does not open under the old key.
 */
export interface Resealers {
  secret(sealed: string, secret: { name: string; sites: readonly string[]; sourceKind: SecretSourceKind }): string;
  siteSession(sealed: string, site: { name: string; origins: readonly string[]; definedMs: number }): string;
  ownerFile(sealed: string, file: { name: string; bytes: number; sha256: string }): string;
  heldResult(sealed: string, held: { operationId: string; requestDigest: string; attempt: number }): string;
  artifact(
    sealed: string,
    artifact: { operationId: string; requestDigest: string; attempt: number; index: number; mediaType: ArtifactMediaType; sha256: string },
  ): string;
}

export interface KeyRotationReport {
  /** Journal key ids (createJournalSealer's keyId) of the old and the new key. */
  fromKeyId: string;
  toKeyId: string;
  /** The rotation's time on the store's clock. */
  atMs: number;
  /** Sealed values now under the new key. */
  resealed: { secrets: number; siteSessions: number; ownerFiles: number; heldResults: number; artifacts: number };
  /**
   * Evidence that could never be served again, deleted rather than carried over: held results and
   * artifacts that expired, whose operation is gone, or that no longer open under the old key.
   */
  dropped: { heldResults: number; artifacts: number };
  /** What was MAC'd again under the new key. */
  resigned: { events: number; operations: number; tombstones: number; rows: number };
  /**
   * HTTP credentials ended: only keyed hashes of them are kept, and a hash made under the old key can
   * never be checked under the new one. API tokens are revoked, OAuth grants revoked (their codes and
   * tokens deleted), OAuth clients that authenticate with a secret deleted (they register again).
   */
  ended: { apiTokens: number; oauthGrants: number; oauthClients: number };
}
