import type { Migration } from "./migrations.js";

/**
 * Migration 17: artifacts may be downloads, so their media type's CHECK takes the types errand
 * recognizes from a download's bytes (receipt/artifactTypes ARTIFACT_MEDIA_TYPES). SQLite cannot
 * change a CHECK in place: the table is rebuilt with its rows.
 */
export const ARTIFACT_KINDS_MIGRATION: Migration = {
  version: 17,
  name: "artifacts: download media types",
  sql: `
CREATE TABLE artifacts_rebuilt (
  operation_id TEXT NOT NULL,
  idx          INTEGER NOT NULL CHECK (idx >= 0),
  attempt      INTEGER NOT NULL,
  media_type   TEXT NOT NULL CHECK (media_type IN ('image/png', 'image/jpeg', 'application/pdf', 'application/zip', 'text/plain', 'application/octet-stream')),
  bytes        INTEGER NOT NULL CHECK (bytes >= 0),
  sha256       TEXT NOT NULL,
  sealed       TEXT NOT NULL,
  expires_ms   INTEGER,
  created_ms   INTEGER NOT NULL,
  PRIMARY KEY (operation_id, idx)
);
INSERT INTO artifacts_rebuilt SELECT operation_id, idx, attempt, media_type, bytes, sha256, sealed, expires_ms, created_ms FROM artifacts;
DROP TABLE artifacts;
ALTER TABLE artifacts_rebuilt RENAME TO artifacts;
CREATE INDEX artifacts_expiry ON artifacts (expires_ms) WHERE expires_ms IS NOT NULL;
`,
};
