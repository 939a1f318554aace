import type { Migration } from "./migrations.js";

/**
 * Migration 5: owner approval and the per-address owner lockout.
 *
 * SQLite cannot change a CHECK constraint in place, so the operations table is rebuilt (create the
 * new table, copy every row, drop the old one, rename) to admit the phase awaiting_approval and to
 * add approval_expires_ms, when an operation waiting for the owner ends BLOCKED approval_expired.
 * The whole rebuild runs inside the migration's own BEGIN IMMEDIATE transaction.
 *
 * The single-row consent_lockout becomes owner_lockouts, one row per client address (a stranger's
 * wrong guesses must never lock the owner out). Lock state is not worth carrying over.
 */
export const APPROVAL_MIGRATION: Migration = {
  version: 5,
  name: "owner approval phase, per-address owner lockout",
  sql: `
CREATE TABLE operations_v5 (
  operation_id        TEXT PRIMARY KEY,
  request_digest      TEXT NOT NULL,
  risk                TEXT NOT NULL,
  task_json           TEXT NOT NULL,
  phase               TEXT NOT NULL CHECK (phase IN ('awaiting_approval', 'queued', 'running', 'completed', 'blocked', 'uncertain', 'cancelled')),
  revision            INTEGER NOT NULL,
  attempts            INTEGER NOT NULL DEFAULT 0,
  max_attempts        INTEGER NOT NULL,
  mutation_boundary   TEXT NOT NULL DEFAULT 'not_crossed' CHECK (mutation_boundary IN ('not_crossed', 'crossed')),
  run_after_ms        INTEGER NOT NULL,
  lease_token         TEXT,
  lease_owner         TEXT,
  lease_expires_ms    INTEGER,
  cancel_requested_ms INTEGER,
  receipt_status      TEXT,
  receipt_seq         INTEGER,
  created_ms          INTEGER NOT NULL,
  updated_ms          INTEGER NOT NULL,
  finished_ms         INTEGER,
  approval_expires_ms INTEGER
);
INSERT INTO operations_v5 (operation_id, request_digest, risk, task_json, phase, revision, attempts, max_attempts, mutation_boundary,
  run_after_ms, lease_token, lease_owner, lease_expires_ms, cancel_requested_ms, receipt_status, receipt_seq, created_ms, updated_ms, finished_ms, approval_expires_ms)
SELECT operation_id, request_digest, risk, task_json, phase, revision, attempts, max_attempts, mutation_boundary,
  run_after_ms, lease_token, lease_owner, lease_expires_ms, cancel_requested_ms, receipt_status, receipt_seq, created_ms, updated_ms, finished_ms, NULL
FROM operations;
DROP TABLE operations;
ALTER TABLE operations_v5 RENAME TO operations;
CREATE INDEX operations_ready ON operations (run_after_ms, created_ms) WHERE phase = 'queued';
CREATE INDEX operations_leased ON operations (lease_expires_ms) WHERE phase = 'running';
CREATE INDEX operations_finished ON operations (finished_ms) WHERE finished_ms IS NOT NULL;
CREATE INDEX operations_awaiting ON operations (approval_expires_ms) WHERE phase = 'awaiting_approval';
CREATE INDEX operations_recent ON operations (updated_ms);

DROP TABLE consent_lockout;
CREATE TABLE owner_lockouts (
  address         TEXT PRIMARY KEY,
  failures        INTEGER NOT NULL,
  lockouts        INTEGER NOT NULL,
  locked_until_ms INTEGER,
  last_failure_ms INTEGER,
  updated_ms      INTEGER NOT NULL
);
`,
};
