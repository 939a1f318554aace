import type { Migration } from "./migrations.js";

/**
 * Migration 7: artifacts (evidence.screenshots). One row per artifact of an operation's last
 * attempt, sealed (AES-256-GCM under the master key's "artifacts" subkey, bound to the operation,
 * its digest, the attempt, the index, the media type and the SHA-256), with the plain size and
 * hash in the clear for the caps and the receipt check. expires_ms is null for evidenceRetention
 * full (kept until the operation is compacted). No foreign key to operations on purpose: a later
 * migration that rebuilds the operations table would cascade-delete every artifact; the rows of
 * compacted operations are deleted by ArtifactStore.dropExpiredArtifacts instead.
 */
export const ARTIFACT_MIGRATION: Migration = {
  version: 7,
  name: "artifacts (evidence screenshots)",
  sql: `
CREATE TABLE artifacts (
  operation_id TEXT NOT NULL,
  idx          INTEGER NOT NULL CHECK (idx >= 0),
  attempt      INTEGER NOT NULL,
  media_type   TEXT NOT NULL CHECK (media_type IN ('image/png', 'image/jpeg')),
  bytes        INTEGER NOT NULL CHECK (bytes >= 0),
  sha256       TEXT NOT NULL,
  sealed       TEXT NOT NULL,
  expires_ms   INTEGER,
  created_ms   INTEGER NOT NULL,
  PRIMARY KEY (operation_id, idx)
);
CREATE INDEX artifacts_expiry ON artifacts (expires_ms) WHERE expires_ms IS NOT NULL;
`,
};
