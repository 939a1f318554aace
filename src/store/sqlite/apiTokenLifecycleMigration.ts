import type { Migration } from "./migrations.js";

/**
 * Migration 18: API tokens may expire (expires_ms, under the row MAC when set: rows without one keep
 * their MAC and never expire), record their last use (last_used_ms, outside the MAC: it grants
 * nothing), and take the scope "metrics" (a scraper's token that reads only /metrics). SQLite cannot
 * change a CHECK constraint in place, so the table is rebuilt with every row and MAC carried over.
 */
export const API_TOKEN_LIFECYCLE_MIGRATION: Migration = {
  version: 18,
  name: "API token expiry, last use and the metrics scope",
  sql: `
CREATE TABLE api_tokens_next (
  token_id     TEXT PRIMARY KEY,
  name         TEXT NOT NULL,
  token_hash   TEXT NOT NULL UNIQUE,
  created_ms   INTEGER NOT NULL,
  revoked_ms   INTEGER,
  mac          TEXT,
  scope        TEXT NOT NULL DEFAULT 'own' CHECK (scope IN ('own', 'all', 'metrics')),
  expires_ms   INTEGER,
  last_used_ms INTEGER
);
INSERT INTO api_tokens_next (token_id, name, token_hash, created_ms, revoked_ms, mac, scope)
  SELECT token_id, name, token_hash, created_ms, revoked_ms, mac, scope FROM api_tokens;
DROP TABLE api_tokens;
ALTER TABLE api_tokens_next RENAME TO api_tokens;
`,
};
