import type { Migration } from "./migrations.js";

/**
 * Migration 6: results held for collect. A finished operation's extracted values and provider
 * session id, sealed (AES-256-GCM under the master key's "held-results" subkey, bound to the
 * operation, its digest and the attempt), kept until expires_ms (ERRAND_RESULT_TTL) and then
 * deleted, so any process on this store can answer a collect that came after the client's timeout.
 */
export const HELD_RESULT_MIGRATION: Migration = {
  version: 6,
  name: "held results for collect",
  sql: `
CREATE TABLE held_results (
  operation_id TEXT PRIMARY KEY,
  attempt      INTEGER NOT NULL,
  sealed       TEXT NOT NULL,
  expires_ms   INTEGER NOT NULL
);
CREATE INDEX held_results_expiry ON held_results (expires_ms);
`,
};
