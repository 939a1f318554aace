import type { Migration } from "./migrations.js";

/**
 * Migration 3: what the provider router shares across runner processes. provider_states holds
 * activation (latest smoke, auth failure) and the 429 back-off; provider_slots holds concurrency
 * slots as leases with the budget they reserve; provider_usage books each attempt's session time
 * and usage estimate in the provider's own unit.
 */
export const PROVIDER_MIGRATION: Migration = {
  version: 3,
  name: "provider states, concurrency slots, usage",
  sql: `
CREATE TABLE provider_states (
  provider           TEXT PRIMARY KEY,
  smoke_status       TEXT,
  smoke_operation_id TEXT,
  smoke_error_code   TEXT,
  smoke_ms           INTEGER,
  verified_ms        INTEGER,
  auth_failed_ms     INTEGER,
  auth_reason        TEXT,
  backoff_until_ms   INTEGER,
  backoff_reason     TEXT,
  updated_ms         INTEGER NOT NULL
);

CREATE TABLE provider_slots (
  slot_id      TEXT PRIMARY KEY,
  provider     TEXT NOT NULL,
  holder       TEXT NOT NULL,
  operation_id TEXT,
  unit         TEXT NOT NULL,
  reserved     REAL NOT NULL,
  acquired_ms  INTEGER NOT NULL,
  expires_ms   INTEGER NOT NULL
);
CREATE INDEX provider_slots_provider ON provider_slots (provider, expires_ms);

CREATE TABLE provider_usage (
  usage_id     INTEGER PRIMARY KEY,
  provider     TEXT NOT NULL,
  operation_id TEXT,
  attempt      INTEGER,
  session_ms   INTEGER NOT NULL,
  unit         TEXT NOT NULL,
  amount       REAL NOT NULL,
  usd          REAL,
  estimate     INTEGER NOT NULL CHECK (estimate IN (0, 1)),
  source       TEXT NOT NULL CHECK (source IN ('measured', 'slot_expired')),
  recorded_ms  INTEGER NOT NULL
);
CREATE INDEX provider_usage_provider ON provider_usage (provider, recorded_ms);
`,
};
