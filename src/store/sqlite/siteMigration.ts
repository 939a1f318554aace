import type { Migration } from "./migrations.js";

/**
 * Migration 10: the owner's sites. `sealed_session` is AES-256-GCM ciphertext whose associated data
 * names the site, its origins and when it was defined, so widening the origins in the database or
 * moving a session to another site makes it unreadable instead of usable somewhere new. No column
 * ever holds a cookie or a storage value in clear.
 */
export const SITE_MIGRATION: Migration = {
  version: 10,
  name: "sites and their sealed sessions",
  sql: `
CREATE TABLE sites (
  name               TEXT PRIMARY KEY,
  origins_json       TEXT NOT NULL,
  login_url          TEXT,
  logged_in_selector TEXT,
  login_hosts_json   TEXT NOT NULL,
  sealed_session     TEXT,
  session_state      TEXT NOT NULL CHECK (session_state IN ('none', 'saved', 'expired')),
  session_saved_ms   INTEGER,
  defined_ms         INTEGER NOT NULL,
  created_ms         INTEGER NOT NULL
);
`,
};
