import type { Migration } from "./migrations.js";

/** Migration 19: the files the owner put in errand for upload steps (errand file add), sealed. */
export const OWNER_FILE_MIGRATION: Migration = {
  version: 19,
  name: "owner files for uploads",
  sql: `
CREATE TABLE owner_files (
  name       TEXT PRIMARY KEY,
  bytes      INTEGER NOT NULL CHECK (bytes >= 0),
  sha256     TEXT NOT NULL,
  sealed     TEXT NOT NULL,
  created_ms INTEGER NOT NULL
);
`,
};
