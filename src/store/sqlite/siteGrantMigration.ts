import type { Migration } from "./migrations.js";

/**
 * Migration 16: the owner's standing grants on sites. Each row carries a MAC under the master key
 * (rows/authenticRows SITE_GRANTS_TABLE) from its first write; the table starts empty.
 */
export const SITE_GRANT_MIGRATION: Migration = {
  version: 16,
  name: "standing grants on sites",
  sql: `
CREATE TABLE site_grants (
  grant_id        TEXT PRIMARY KEY,
  site            TEXT NOT NULL,
  site_defined_ms INTEGER NOT NULL,
  risk            TEXT NOT NULL,
  secrets_json    TEXT NOT NULL,
  via             TEXT NOT NULL,
  created_ms      INTEGER NOT NULL,
  expires_ms      INTEGER NOT NULL,
  revoked_ms      INTEGER,
  mac             TEXT
);
CREATE INDEX site_grants_site ON site_grants (site, created_ms);
`,
};
