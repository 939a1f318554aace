import type { Migration } from "./migrations.js";

/**
 * Migration 4: the owner's declared secrets. `sealed` is AES-256-GCM ciphertext whose associated
 * data names the secret, its sites and its source kind, so editing any of those columns makes the
 * row unreadable instead of re-binding the value. No column ever holds a plaintext value.
 */
export const SECRET_MIGRATION: Migration = {
  version: 4,
  name: "declared secrets",
  sql: `
CREATE TABLE secrets (
  name        TEXT PRIMARY KEY,
  sites_json  TEXT NOT NULL,
  source_kind TEXT NOT NULL CHECK (source_kind IN ('stored', 'env', 'file')),
  sealed      TEXT NOT NULL,
  created_ms  INTEGER NOT NULL,
  updated_ms  INTEGER NOT NULL
);
`,
};
