import { ACCESS_MIGRATION } from "./accessMigration.js";
import { APPROVAL_MIGRATION } from "./approvalMigration.js";
import { PROVIDER_MIGRATION } from "./providerMigration.js";
import { SECRET_MIGRATION } from "./secretMigration.js";
import { HELD_RESULT_MIGRATION } from "./heldResultMigration.js";
import { ARTIFACT_MIGRATION } from "./artifactMigration.js";
import { JOURNAL_CHAINS_MIGRATION } from "./journalChainsMigration.js";
import { SUBMITTER_MIGRATION } from "./submitterMigration.js";
import { SITE_MIGRATION } from "./siteMigration.js";
import { AUTHENTIC_SITES_MIGRATION } from "./authenticSitesMigration.js";
import { AUTHENTIC_ROWS_MIGRATION } from "./authenticRowsMigration.js";
import { AUTHENTIC_OAUTH_MIGRATION } from "./authenticOAuthMigration.js";
import { AUTHENTIC_SECRETS_MIGRATION } from "./authenticSecretsMigration.js";
import type { AuthenticTable } from "../rows/authenticRows.js";
import { API_TOKEN_SCOPE_MIGRATION } from "./apiTokenScopeMigration.js";
import { SITE_GRANT_MIGRATION } from "./siteGrantMigration.js";
import { ARTIFACT_KINDS_MIGRATION } from "./artifactKindsMigration.js";
import { API_TOKEN_LIFECYCLE_MIGRATION } from "./apiTokenLifecycleMigration.js";
import { OWNER_FILE_MIGRATION } from "./ownerFileMigration.js";

/**
 * Forward-only schema migrations, applied in order. A migration is never edited once released:
 * changes go into a new, higher-numbered entry. The migrator records each version in
 * schema_migrations inside the same transaction that applies it.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
  /**
   * Tables whose mac column this migration adds: errand MACs their existing rows with the key in the
   * same transaction (sqlite/authenticTableSql.sealAllRows), so it is applied only by a store opened
   * with the key.
   */
  authenticates?: readonly AuthenticTable[];
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "operations, attempts, control actions, breakers, journal",
    sql: `
CREATE TABLE operations (
  operation_id        TEXT PRIMARY KEY,
  request_digest      TEXT NOT NULL,
  risk                TEXT NOT NULL,
  task_json           TEXT NOT NULL,
  phase               TEXT NOT NULL CHECK (phase IN ('queued', 'running', 'completed', 'blocked', 'uncertain', 'cancelled')),
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
  finished_ms         INTEGER
);
CREATE INDEX operations_ready ON operations (run_after_ms, created_ms) WHERE phase = 'queued';
CREATE INDEX operations_leased ON operations (lease_expires_ms) WHERE phase = 'running';
CREATE INDEX operations_finished ON operations (finished_ms) WHERE finished_ms IS NOT NULL;

CREATE TABLE attempts (
  operation_id TEXT NOT NULL,
  attempt      INTEGER NOT NULL,
  runner_id    TEXT NOT NULL,
  started_ms   INTEGER NOT NULL,
  ended_ms     INTEGER,
  outcome      TEXT,
  error_code   TEXT,
  provider     TEXT,
  PRIMARY KEY (operation_id, attempt)
);

CREATE TABLE control_actions (
  control_action_id TEXT PRIMARY KEY,
  operation_id      TEXT NOT NULL,
  action            TEXT NOT NULL,
  outcome           TEXT NOT NULL,
  created_ms        INTEGER NOT NULL
);

CREATE TABLE provider_breakers (
  provider         TEXT PRIMARY KEY,
  state            TEXT NOT NULL CHECK (state IN ('CLOSED', 'OPEN', 'HALF_OPEN')),
  failures         INTEGER NOT NULL,
  open_until_ms    INTEGER,
  probe_token      TEXT,
  probe_expires_ms INTEGER,
  revision         INTEGER NOT NULL,
  updated_ms       INTEGER NOT NULL
);

CREATE TABLE journal_events (
  seq          INTEGER PRIMARY KEY,
  operation_id TEXT,
  type         TEXT NOT NULL,
  at_ms        INTEGER NOT NULL,
  body         TEXT,
  body_hash    TEXT NOT NULL,
  prev_mac     TEXT NOT NULL,
  mac          TEXT NOT NULL
);
CREATE INDEX journal_events_operation ON journal_events (operation_id, seq);

CREATE TABLE journal_head (
  id             INTEGER PRIMARY KEY CHECK (id = 1),
  journal_id     TEXT NOT NULL,
  key_id         TEXT NOT NULL,
  seq            INTEGER NOT NULL,
  mac            TEXT NOT NULL,
  base_seq       INTEGER NOT NULL,
  base_mac       TEXT NOT NULL,
  stored_bytes   INTEGER NOT NULL,
  tombstones     INTEGER NOT NULL,
  checkpoint_mac TEXT NOT NULL
);

CREATE TABLE operation_tombstones (
  operation_id   TEXT PRIMARY KEY,
  request_digest TEXT NOT NULL,
  phase          TEXT NOT NULL,
  receipt_status TEXT,
  attempts       INTEGER NOT NULL,
  revision       INTEGER NOT NULL,
  mutation_boundary TEXT NOT NULL,
  last_seq       INTEGER NOT NULL,
  created_ms     INTEGER NOT NULL,
  finished_ms    INTEGER NOT NULL,
  compacted_ms   INTEGER NOT NULL,
  mac            TEXT NOT NULL
);
`,
  },
  ACCESS_MIGRATION,
  PROVIDER_MIGRATION,
  SECRET_MIGRATION,
  APPROVAL_MIGRATION,
  HELD_RESULT_MIGRATION,
  ARTIFACT_MIGRATION,
  JOURNAL_CHAINS_MIGRATION,
  SUBMITTER_MIGRATION,
  SITE_MIGRATION,
  AUTHENTIC_ROWS_MIGRATION,
  AUTHENTIC_OAUTH_MIGRATION,
  AUTHENTIC_SECRETS_MIGRATION,
  API_TOKEN_SCOPE_MIGRATION,
  AUTHENTIC_SITES_MIGRATION,
  SITE_GRANT_MIGRATION,
  ARTIFACT_KINDS_MIGRATION,
  API_TOKEN_LIFECYCLE_MIGRATION,
  OWNER_FILE_MIGRATION,
];

export const LATEST_SCHEMA_VERSION = MIGRATIONS.reduce((max, m) => Math.max(max, m.version), 0);
