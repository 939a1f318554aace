import type { AuthenticTable } from "../rows/authenticRows.js";
import {
  API_TOKENS_TABLE,
  OAUTH_CLIENTS_TABLE,
  OAUTH_CODES_TABLE,
  OAUTH_FAMILIES_TABLE,
  OAUTH_TOKENS_TABLE,
  OWNER_SECRET_TABLE,
  SECRETS_TABLE,
  SITES_TABLE,
} from "../rows/authenticRows.js";

/**
 * PostgreSQL's own forward-only migrations (numbered apart from SQLite's: each backend records its
 * own schema history). A migration is never edited once released; changes go into a new entry. The
 * migrator applies each missing one and records it in the same transaction.
 *
 * Version 1 is errand's schema as SQLite has it after its migration 6 (operations with approval,
 * control actions, breakers, the journal with its head and tombstones, access, providers, secrets,
 * held results), in PostgreSQL types (ids that are paged or listed in order use the C collation, so
 * they sort byte by byte as in SQLite): BIGINT milliseconds, TEXT for canonical JSON (stored byte for
 * byte, never re-encoded), DOUBLE PRECISION for usage amounts. The attempts table SQLite's migration
 * 1 made is not carried over: the attempt history is read from the journal.
 */
export interface PostgresMigration {
  version: number;
  name: string;
  sql: string;
  /**
   * Tables whose mac column this migration adds: errand MACs their existing rows with the key in the
   * same transaction (postgres/authenticTablePg.sealAllRows).
   */
  authenticates?: readonly AuthenticTable[];
}

export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    name: "operations, control actions, breakers, journal, access, providers, secrets, held results",
    sql: `
CREATE TABLE operations (
  operation_id        TEXT COLLATE "C" PRIMARY KEY,
  request_digest      TEXT NOT NULL,
  risk                TEXT NOT NULL,
  task_json           TEXT NOT NULL,
  phase               TEXT NOT NULL CHECK (phase IN ('awaiting_approval', 'queued', 'running', 'completed', 'blocked', 'uncertain', 'cancelled')),
  revision            BIGINT NOT NULL,
  attempts            BIGINT NOT NULL DEFAULT 0,
  max_attempts        BIGINT NOT NULL,
  mutation_boundary   TEXT NOT NULL DEFAULT 'not_crossed' CHECK (mutation_boundary IN ('not_crossed', 'crossed')),
  run_after_ms        BIGINT NOT NULL,
  lease_token         TEXT,
  lease_owner         TEXT,
  lease_expires_ms    BIGINT,
  cancel_requested_ms BIGINT,
  receipt_status      TEXT,
  receipt_seq         BIGINT,
  created_ms          BIGINT NOT NULL,
  updated_ms          BIGINT NOT NULL,
  finished_ms         BIGINT,
  approval_expires_ms BIGINT
);
CREATE INDEX operations_ready ON operations (run_after_ms, created_ms, operation_id) WHERE phase = 'queued';
CREATE INDEX operations_leased ON operations (lease_expires_ms) WHERE phase = 'running';
CREATE INDEX operations_finished ON operations (finished_ms) WHERE finished_ms IS NOT NULL;
CREATE INDEX operations_awaiting ON operations (approval_expires_ms) WHERE phase = 'awaiting_approval';
CREATE INDEX operations_recent ON operations (updated_ms);

CREATE TABLE control_actions (
  control_action_id TEXT PRIMARY KEY,
  operation_id      TEXT NOT NULL,
  action            TEXT NOT NULL,
  outcome           TEXT NOT NULL,
  created_ms        BIGINT NOT NULL
);
CREATE INDEX control_actions_operation ON control_actions (operation_id);

CREATE TABLE provider_breakers (
  provider         TEXT COLLATE "C" PRIMARY KEY,
  state            TEXT NOT NULL CHECK (state IN ('CLOSED', 'OPEN', 'HALF_OPEN')),
  failures         BIGINT NOT NULL,
  open_until_ms    BIGINT,
  probe_token      TEXT,
  probe_expires_ms BIGINT,
  revision         BIGINT NOT NULL,
  updated_ms       BIGINT NOT NULL
);

CREATE TABLE journal_events (
  seq          BIGINT PRIMARY KEY,
  operation_id TEXT,
  type         TEXT NOT NULL,
  at_ms        BIGINT NOT NULL,
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
  seq            BIGINT NOT NULL,
  mac            TEXT NOT NULL,
  base_seq       BIGINT NOT NULL,
  base_mac       TEXT NOT NULL,
  stored_bytes   BIGINT NOT NULL,
  tombstones     BIGINT NOT NULL,
  checkpoint_mac TEXT NOT NULL
);

CREATE TABLE operation_tombstones (
  operation_id      TEXT COLLATE "C" PRIMARY KEY,
  request_digest    TEXT NOT NULL,
  phase             TEXT NOT NULL,
  receipt_status    TEXT,
  attempts          BIGINT NOT NULL,
  revision          BIGINT NOT NULL,
  mutation_boundary TEXT NOT NULL,
  last_seq          BIGINT NOT NULL,
  created_ms        BIGINT NOT NULL,
  finished_ms       BIGINT NOT NULL,
  compacted_ms      BIGINT NOT NULL,
  mac               TEXT NOT NULL
);

CREATE TABLE held_results (
  operation_id TEXT PRIMARY KEY,
  attempt      BIGINT NOT NULL,
  sealed       TEXT NOT NULL,
  expires_ms   BIGINT NOT NULL
);
CREATE INDEX held_results_expiry ON held_results (expires_ms);

CREATE TABLE owner_secret (
  id         INTEGER PRIMARY KEY CHECK (id = 1),
  encoded    TEXT NOT NULL,
  updated_ms BIGINT NOT NULL
);

CREATE TABLE oauth_clients (
  client_id     TEXT PRIMARY KEY,
  secret_hash   TEXT,
  auth_method   TEXT NOT NULL CHECK (auth_method IN ('none', 'client_secret_post', 'client_secret_basic')),
  client_name   TEXT NOT NULL,
  redirect_uris TEXT NOT NULL,
  metadata_json TEXT NOT NULL,
  created_ms    BIGINT NOT NULL,
  last_grant_ms BIGINT
);

CREATE TABLE oauth_codes (
  code_hash      TEXT PRIMARY KEY,
  client_id      TEXT NOT NULL,
  redirect_uri   TEXT NOT NULL,
  code_challenge TEXT NOT NULL,
  scopes         TEXT NOT NULL,
  resource       TEXT NOT NULL,
  expires_ms     BIGINT NOT NULL,
  used_ms        BIGINT,
  family_id      TEXT
);
CREATE INDEX oauth_codes_expiry ON oauth_codes (expires_ms);

CREATE TABLE oauth_families (
  family_id      TEXT PRIMARY KEY,
  client_id      TEXT NOT NULL,
  scopes         TEXT NOT NULL,
  resource       TEXT NOT NULL,
  generation     BIGINT NOT NULL,
  created_ms     BIGINT NOT NULL,
  expires_ms     BIGINT NOT NULL,
  revoked_ms     BIGINT,
  revoked_reason TEXT
);
CREATE INDEX oauth_families_expiry ON oauth_families (expires_ms);

CREATE TABLE oauth_tokens (
  token_hash TEXT PRIMARY KEY,
  family_id  TEXT NOT NULL,
  kind       TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
  generation BIGINT NOT NULL,
  expires_ms BIGINT NOT NULL,
  used_ms    BIGINT,
  created_ms BIGINT NOT NULL
);
CREATE INDEX oauth_tokens_family ON oauth_tokens (family_id);
CREATE INDEX oauth_tokens_expiry ON oauth_tokens (expires_ms);

CREATE TABLE api_tokens (
  token_id   TEXT PRIMARY KEY,
  name       TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  created_ms BIGINT NOT NULL,
  revoked_ms BIGINT
);

CREATE TABLE owner_lockouts (
  address         TEXT PRIMARY KEY,
  failures        BIGINT NOT NULL,
  lockouts        BIGINT NOT NULL,
  locked_until_ms BIGINT,
  last_failure_ms BIGINT,
  updated_ms      BIGINT NOT NULL
);

CREATE TABLE provider_states (
  provider           TEXT COLLATE "C" PRIMARY KEY,
  smoke_status       TEXT,
  smoke_operation_id TEXT,
  smoke_error_code   TEXT,
  smoke_ms           BIGINT,
  verified_ms        BIGINT,
  auth_failed_ms     BIGINT,
  auth_reason        TEXT,
  backoff_until_ms   BIGINT,
  backoff_reason     TEXT,
  updated_ms         BIGINT NOT NULL
);

CREATE TABLE provider_slots (
  slot_id      TEXT PRIMARY KEY,
  provider     TEXT NOT NULL,
  holder       TEXT NOT NULL,
  operation_id TEXT,
  unit         TEXT NOT NULL,
  reserved     DOUBLE PRECISION NOT NULL,
  acquired_ms  BIGINT NOT NULL,
  expires_ms   BIGINT NOT NULL
);
CREATE INDEX provider_slots_provider ON provider_slots (provider, expires_ms);

CREATE TABLE provider_usage (
  usage_id     BIGSERIAL PRIMARY KEY,
  provider     TEXT NOT NULL,
  operation_id TEXT,
  attempt      BIGINT,
  session_ms   BIGINT NOT NULL,
  unit         TEXT NOT NULL,
  amount       DOUBLE PRECISION NOT NULL,
  usd          DOUBLE PRECISION,
  estimate     INTEGER NOT NULL CHECK (estimate IN (0, 1)),
  source       TEXT NOT NULL CHECK (source IN ('measured', 'slot_expired')),
  recorded_ms  BIGINT NOT NULL
);
CREATE INDEX provider_usage_provider ON provider_usage (provider, recorded_ms);

CREATE TABLE secrets (
  name        TEXT COLLATE "C" PRIMARY KEY,
  sites_json  TEXT NOT NULL,
  source_kind TEXT NOT NULL CHECK (source_kind IN ('stored', 'env', 'file')),
  sealed      TEXT NOT NULL,
  created_ms  BIGINT NOT NULL,
  updated_ms  BIGINT NOT NULL
);
`,
  },
  {
    version: 2,
    name: "artifacts (evidence screenshots)",
    // SQLite's migration 7: one row per artifact of an operation's last attempt, sealed; no foreign
    // key to operations (their rows are deleted by compaction; dropExpiredArtifacts deletes the bytes).
    sql: `
CREATE TABLE artifacts (
  operation_id TEXT COLLATE "C" NOT NULL,
  idx          INTEGER NOT NULL CHECK (idx >= 0),
  attempt      BIGINT NOT NULL,
  media_type   TEXT NOT NULL CHECK (media_type IN ('image/png', 'image/jpeg')),
  bytes        BIGINT NOT NULL CHECK (bytes >= 0),
  sha256       TEXT NOT NULL,
  sealed       TEXT NOT NULL,
  expires_ms   BIGINT,
  created_ms   BIGINT NOT NULL,
  PRIMARY KEY (operation_id, idx)
);
CREATE INDEX artifacts_expiry ON artifacts (expires_ms) WHERE expires_ms IS NOT NULL;
`,
  },
  {
    version: 3,
    name: "per-operation journal chains and checkpoints",
    // SQLite's migration 8. Events are numbered by an identity column (no writer waits for another to
    // learn its seq; gaps are harmless, chains are ordered by chain_seq). SQL cannot compute MACs: the
    // journal is converted by errand with the key in the same transaction (migratePostgres).
    sql: `
ALTER TABLE journal_events ADD COLUMN chain_seq BIGINT NOT NULL DEFAULT 0;
ALTER TABLE journal_events ALTER COLUMN seq ADD GENERATED BY DEFAULT AS IDENTITY;
SELECT setval(pg_get_serial_sequence('journal_events', 'seq'), coalesce((SELECT max(seq) FROM journal_events), 0) + 1, false);
CREATE INDEX journal_events_chain ON journal_events (operation_id, chain_seq);
ALTER TABLE operations ADD COLUMN chain_seq BIGINT NOT NULL DEFAULT 0;
ALTER TABLE operations ADD COLUMN chain_mac TEXT NOT NULL DEFAULT '';
ALTER TABLE operations ADD COLUMN stored_bytes BIGINT NOT NULL DEFAULT 0;
ALTER TABLE journal_head ADD COLUMN format INTEGER NOT NULL DEFAULT 1;
ALTER TABLE journal_head ADD COLUMN checkpoint_operations BIGINT NOT NULL DEFAULT 0;
ALTER TABLE journal_head ADD COLUMN checkpoint_digest TEXT NOT NULL DEFAULT '';
CREATE TABLE journal_checkpoint (
  operation_id TEXT COLLATE "C" PRIMARY KEY,
  chain_seq    BIGINT NOT NULL,
  chain_mac    TEXT NOT NULL
);
`,
  },
  {
    version: 4,
    name: "operation submitters",
    // SQLite's migration 9: operations stored before it count as the owner's, as their events mean.
    sql: `
ALTER TABLE operations ADD COLUMN submitted_by TEXT NOT NULL DEFAULT 'owner';
CREATE INDEX operations_submitter ON operations (submitted_by, updated_ms);
`,
  },
  {
    version: 5,
    name: "sites and their sealed sessions",
    // SQLite's migration 10: a session is only ever stored sealed (src/sites), bound to the site's name,
    // origins and definition time.
    sql: `
CREATE TABLE sites (
  name               TEXT COLLATE "C" PRIMARY KEY,
  origins_json       TEXT NOT NULL,
  login_url          TEXT,
  logged_in_selector TEXT,
  login_hosts_json   TEXT NOT NULL,
  sealed_session     TEXT,
  session_state      TEXT NOT NULL CHECK (session_state IN ('none', 'saved', 'expired')),
  session_saved_ms   BIGINT,
  defined_ms         BIGINT NOT NULL,
  created_ms         BIGINT NOT NULL
);
`,
  },
  {
    version: 6,
    name: "owner password and API tokens authenticated",
    // SQLite's migration 11: a MAC under the master key on each row (rows/authenticRows), given to the
    // rows that exist by errand with the key in this transaction (migratePostgres).
    sql: `
ALTER TABLE owner_secret ADD COLUMN mac TEXT;
ALTER TABLE api_tokens ADD COLUMN mac TEXT;
`,
    authenticates: [OWNER_SECRET_TABLE, API_TOKENS_TABLE],
  },
  {
    version: 7,
    name: "OAuth clients, codes, families and tokens authenticated",
    // SQLite's migration 12.
    sql: `
ALTER TABLE oauth_clients ADD COLUMN mac TEXT;
ALTER TABLE oauth_codes ADD COLUMN mac TEXT;
ALTER TABLE oauth_families ADD COLUMN mac TEXT;
ALTER TABLE oauth_tokens ADD COLUMN mac TEXT;
`,
    authenticates: [OAUTH_CLIENTS_TABLE, OAUTH_CODES_TABLE, OAUTH_FAMILIES_TABLE, OAUTH_TOKENS_TABLE],
  },
  {
    version: 8,
    name: "declared secrets authenticated",
    // SQLite's migration 13.
    sql: `
ALTER TABLE secrets ADD COLUMN mac TEXT;
`,
    authenticates: [SECRETS_TABLE],
  },
  {
    version: 9,
    name: "API token scopes",
    // SQLite's migration 14: tokens made before it keep seeing only their own operations.
    sql: `ALTER TABLE api_tokens ADD COLUMN scope TEXT NOT NULL DEFAULT 'own' CHECK (scope IN ('own', 'all'));`,
  },
  {
    version: 10,
    name: "sites authenticated",
    // SQLite's migration 15.
    sql: `
ALTER TABLE sites ADD COLUMN mac TEXT;
`,
    authenticates: [SITES_TABLE],
  },
  {
    version: 11,
    name: "standing grants on sites",
    // SQLite's migration 16: every row carries a MAC from its first write; the table starts empty.
    sql: `
CREATE TABLE site_grants (
  grant_id        TEXT COLLATE "C" PRIMARY KEY,
  site            TEXT COLLATE "C" NOT NULL,
  site_defined_ms BIGINT NOT NULL,
  risk            TEXT NOT NULL,
  secrets_json    TEXT NOT NULL,
  via             TEXT NOT NULL,
  created_ms      BIGINT NOT NULL,
  expires_ms      BIGINT NOT NULL,
  revoked_ms      BIGINT,
  mac             TEXT
);
CREATE INDEX site_grants_site ON site_grants (site, created_ms);
`,
  },
  {
    version: 12,
    name: "artifacts: download media types",
    // SQLite's migration 17: the media type's CHECK takes the types errand recognizes from a download's bytes.
    sql: `
ALTER TABLE artifacts DROP CONSTRAINT artifacts_media_type_check;
ALTER TABLE artifacts ADD CONSTRAINT artifacts_media_type_check CHECK (media_type IN ('image/png', 'image/jpeg', 'application/pdf', 'application/zip', 'text/plain', 'application/octet-stream'));
`,
  },
  {
    version: 13,
    name: "API token expiry, last use and the metrics scope",
    // SQLite's migration 18: expires_ms is under the row MAC when set (rows without one keep their
    // MAC and never expire); last_used_ms grants nothing and is not.
    sql: `
ALTER TABLE api_tokens DROP CONSTRAINT api_tokens_scope_check;
ALTER TABLE api_tokens ADD CONSTRAINT api_tokens_scope_check CHECK (scope IN ('own', 'all', 'metrics'));
ALTER TABLE api_tokens ADD COLUMN expires_ms BIGINT;
ALTER TABLE api_tokens ADD COLUMN last_used_ms BIGINT;
`,
  },
  {
    version: 14,
    name: "owner files for uploads",
    // SQLite's migration 19: the files the owner put in errand for upload steps, sealed.
    sql: `
CREATE TABLE owner_files (
  name       TEXT COLLATE "C" PRIMARY KEY,
  bytes      BIGINT NOT NULL CHECK (bytes >= 0),
  sha256     TEXT NOT NULL,
  sealed     TEXT NOT NULL,
  created_ms BIGINT NOT NULL
);
`,
  },
];

export const POSTGRES_SCHEMA_VERSION = POSTGRES_MIGRATIONS.reduce((max, m) => Math.max(max, m.version), 0);
