import type { Migration } from "./migrations.js";

/**
 * Migration 2: who may call errand over HTTP. Secrets are never stored, only keyed hashes of them
 * (token_hash, code_hash, secret_hash). Token families group an authorization's access and refresh
 * tokens so that a replayed refresh token or a revocation ends all of them at once.
 */
export const ACCESS_MIGRATION: Migration = {
  version: 2,
  name: "owner secret, OAuth clients, codes, token families, API tokens, consent lockout",
  sql: `
CREATE TABLE owner_secret (
  id         INTEGER PRIMARY KEY CHECK (id = 1),
  encoded    TEXT NOT NULL,
  updated_ms INTEGER NOT NULL
);

CREATE TABLE oauth_clients (
  client_id     TEXT PRIMARY KEY,
  secret_hash   TEXT,
  auth_method   TEXT NOT NULL CHECK (auth_method IN ('none', 'client_secret_post', 'client_secret_basic')),
  client_name   TEXT NOT NULL,
  redirect_uris TEXT NOT NULL,
  metadata_json TEXT NOT NULL,
  created_ms    INTEGER NOT NULL,
  last_grant_ms INTEGER
);

CREATE TABLE oauth_codes (
  code_hash      TEXT PRIMARY KEY,
  client_id      TEXT NOT NULL,
  redirect_uri   TEXT NOT NULL,
  code_challenge TEXT NOT NULL,
  scopes         TEXT NOT NULL,
  resource       TEXT NOT NULL,
  expires_ms     INTEGER NOT NULL,
  used_ms        INTEGER,
  family_id      TEXT
);
CREATE INDEX oauth_codes_expiry ON oauth_codes (expires_ms);

CREATE TABLE oauth_families (
  family_id      TEXT PRIMARY KEY,
  client_id      TEXT NOT NULL,
  scopes         TEXT NOT NULL,
  resource       TEXT NOT NULL,
  generation     INTEGER NOT NULL,
  created_ms     INTEGER NOT NULL,
  expires_ms     INTEGER NOT NULL,
  revoked_ms     INTEGER,
  revoked_reason TEXT
);
CREATE INDEX oauth_families_expiry ON oauth_families (expires_ms);

CREATE TABLE oauth_tokens (
  token_hash TEXT PRIMARY KEY,
  family_id  TEXT NOT NULL,
  kind       TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
  generation INTEGER NOT NULL,
  expires_ms INTEGER NOT NULL,
  used_ms    INTEGER,
  created_ms INTEGER NOT NULL
);
CREATE INDEX oauth_tokens_family ON oauth_tokens (family_id);
CREATE INDEX oauth_tokens_expiry ON oauth_tokens (expires_ms);

CREATE TABLE api_tokens (
  token_id   TEXT PRIMARY KEY,
  name       TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  created_ms INTEGER NOT NULL,
  revoked_ms INTEGER
);

CREATE TABLE consent_lockout (
  id              INTEGER PRIMARY KEY CHECK (id = 1),
  failures        INTEGER NOT NULL,
  lockouts        INTEGER NOT NULL,
  locked_until_ms INTEGER,
  last_failure_ms INTEGER,
  revision        INTEGER NOT NULL
);
`,
};
