/**
 * The libSQL store's schema, created whole in one batch on a new database (createLibsqlSchema.ts).
 * The tables are the SQLite store's as its migrations leave them (same dialect, same columns, same
 * row mapping in store/rows), written out final instead of replayed migration by migration, plus
 * batch_guard (batchGuard.ts), less the attempts table no store writes; test/store/libsql/
 * libsqlSchemaMatchesSqlite.test.ts fails when the two drift apart. The version lives in libsql_schema, numbered on its own: a change
 * goes into a new, higher version applied by a migration, never into this text.
 */
export const LIBSQL_SCHEMA_VERSION = 1;

export const LIBSQL_SCHEMA: readonly string[] = [
  `CREATE TABLE libsql_schema (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_ms INTEGER NOT NULL
  )`,
  // Always empty between batches: a batch's guard inserts a row that must satisfy the CHECK, and the
  // same batch deletes it again before it commits.
  `CREATE TABLE batch_guard (
    ok INTEGER NOT NULL CONSTRAINT batch_guard_holds CHECK (ok = 1)
  )`,
  `CREATE TABLE operations (
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
    approval_expires_ms INTEGER,
    chain_seq           INTEGER NOT NULL DEFAULT 0,
    chain_mac           TEXT NOT NULL DEFAULT '',
    stored_bytes        INTEGER NOT NULL DEFAULT 0,
    submitted_by        TEXT NOT NULL DEFAULT 'owner'
  )`,
  "CREATE INDEX operations_ready ON operations (run_after_ms, created_ms) WHERE phase = 'queued'",
  "CREATE INDEX operations_leased ON operations (lease_expires_ms) WHERE phase = 'running'",
  "CREATE INDEX operations_finished ON operations (finished_ms) WHERE finished_ms IS NOT NULL",
  "CREATE INDEX operations_awaiting ON operations (approval_expires_ms) WHERE phase = 'awaiting_approval'",
  "CREATE INDEX operations_recent ON operations (updated_ms)",
  "CREATE INDEX operations_submitter ON operations (submitted_by, updated_ms)",
  `CREATE TABLE control_actions (
    control_action_id TEXT PRIMARY KEY,
    operation_id      TEXT NOT NULL,
    action            TEXT NOT NULL,
    outcome           TEXT NOT NULL,
    created_ms        INTEGER NOT NULL
  )`,
  `CREATE TABLE provider_breakers (
    provider         TEXT PRIMARY KEY,
    state            TEXT NOT NULL CHECK (state IN ('CLOSED', 'OPEN', 'HALF_OPEN')),
    failures         INTEGER NOT NULL,
    open_until_ms    INTEGER,
    probe_token      TEXT,
    probe_expires_ms INTEGER,
    revision         INTEGER NOT NULL,
    updated_ms       INTEGER NOT NULL
  )`,
  `CREATE TABLE journal_events (
    seq          INTEGER PRIMARY KEY,
    operation_id TEXT,
    type         TEXT NOT NULL,
    at_ms        INTEGER NOT NULL,
    body         TEXT,
    body_hash    TEXT NOT NULL,
    prev_mac     TEXT NOT NULL,
    mac          TEXT NOT NULL,
    chain_seq    INTEGER NOT NULL DEFAULT 0
  )`,
  "CREATE INDEX journal_events_operation ON journal_events (operation_id, seq)",
  "CREATE INDEX journal_events_chain ON journal_events (operation_id, chain_seq)",
  `CREATE TABLE journal_head (
    id                    INTEGER PRIMARY KEY CHECK (id = 1),
    journal_id            TEXT NOT NULL,
    key_id                TEXT NOT NULL,
    seq                   INTEGER NOT NULL,
    mac                   TEXT NOT NULL,
    base_seq              INTEGER NOT NULL,
    base_mac              TEXT NOT NULL,
    stored_bytes          INTEGER NOT NULL,
    tombstones            INTEGER NOT NULL,
    checkpoint_mac        TEXT NOT NULL,
    format                INTEGER NOT NULL,
    checkpoint_operations INTEGER NOT NULL DEFAULT 0,
    checkpoint_digest     TEXT NOT NULL DEFAULT ''
  )`,
  `CREATE TABLE journal_checkpoint (
    operation_id TEXT PRIMARY KEY,
    chain_seq    INTEGER NOT NULL,
    chain_mac    TEXT NOT NULL
  )`,
  `CREATE TABLE operation_tombstones (
    operation_id      TEXT PRIMARY KEY,
    request_digest    TEXT NOT NULL,
    phase             TEXT NOT NULL,
    receipt_status    TEXT,
    attempts          INTEGER NOT NULL,
    revision          INTEGER NOT NULL,
    mutation_boundary TEXT NOT NULL,
    last_seq          INTEGER NOT NULL,
    created_ms        INTEGER NOT NULL,
    finished_ms       INTEGER NOT NULL,
    compacted_ms      INTEGER NOT NULL,
    mac               TEXT NOT NULL
  )`,
  `CREATE TABLE held_results (
    operation_id TEXT PRIMARY KEY,
    attempt      INTEGER NOT NULL,
    sealed       TEXT NOT NULL,
    expires_ms   INTEGER NOT NULL
  )`,
  "CREATE INDEX held_results_expiry ON held_results (expires_ms)",
  `CREATE TABLE owner_secret (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    encoded    TEXT NOT NULL,
    updated_ms INTEGER NOT NULL,
    mac        TEXT
  )`,
  `CREATE TABLE owner_lockouts (
    address         TEXT PRIMARY KEY,
    failures        INTEGER NOT NULL,
    lockouts        INTEGER NOT NULL,
    locked_until_ms INTEGER,
    last_failure_ms INTEGER,
    updated_ms      INTEGER NOT NULL
  )`,
  `CREATE TABLE api_tokens (
    token_id     TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    token_hash   TEXT NOT NULL UNIQUE,
    created_ms   INTEGER NOT NULL,
    revoked_ms   INTEGER,
    mac          TEXT,
    scope        TEXT NOT NULL DEFAULT 'own' CHECK (scope IN ('own', 'all', 'metrics')),
    expires_ms   INTEGER,
    last_used_ms INTEGER
  )`,
  `CREATE TABLE oauth_clients (
    client_id     TEXT PRIMARY KEY,
    secret_hash   TEXT,
    auth_method   TEXT NOT NULL CHECK (auth_method IN ('none', 'client_secret_post', 'client_secret_basic')),
    client_name   TEXT NOT NULL,
    redirect_uris TEXT NOT NULL,
    metadata_json TEXT NOT NULL,
    created_ms    INTEGER NOT NULL,
    last_grant_ms INTEGER,
    mac           TEXT
  )`,
  `CREATE TABLE oauth_codes (
    code_hash      TEXT PRIMARY KEY,
    client_id      TEXT NOT NULL,
    redirect_uri   TEXT NOT NULL,
    code_challenge TEXT NOT NULL,
    scopes         TEXT NOT NULL,
    resource       TEXT NOT NULL,
    expires_ms     INTEGER NOT NULL,
    used_ms        INTEGER,
    family_id      TEXT,
    mac            TEXT
  )`,
  "CREATE INDEX oauth_codes_expiry ON oauth_codes (expires_ms)",
  `CREATE TABLE oauth_families (
    family_id      TEXT PRIMARY KEY,
    client_id      TEXT NOT NULL,
    scopes         TEXT NOT NULL,
    resource       TEXT NOT NULL,
    generation     INTEGER NOT NULL,
    created_ms     INTEGER NOT NULL,
    expires_ms     INTEGER NOT NULL,
    revoked_ms     INTEGER,
    revoked_reason TEXT,
    mac            TEXT
  )`,
  "CREATE INDEX oauth_families_expiry ON oauth_families (expires_ms)",
  `CREATE TABLE oauth_tokens (
    token_hash TEXT PRIMARY KEY,
    family_id  TEXT NOT NULL,
    kind       TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
    generation INTEGER NOT NULL,
    expires_ms INTEGER NOT NULL,
    used_ms    INTEGER,
    created_ms INTEGER NOT NULL,
    mac        TEXT
  )`,
  "CREATE INDEX oauth_tokens_family ON oauth_tokens (family_id)",
  "CREATE INDEX oauth_tokens_expiry ON oauth_tokens (expires_ms)",
  `CREATE TABLE provider_states (
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
  )`,
  `CREATE TABLE provider_slots (
    slot_id      TEXT PRIMARY KEY,
    provider     TEXT NOT NULL,
    holder       TEXT NOT NULL,
    operation_id TEXT,
    unit         TEXT NOT NULL,
    reserved     REAL NOT NULL,
    acquired_ms  INTEGER NOT NULL,
    expires_ms   INTEGER NOT NULL
  )`,
  "CREATE INDEX provider_slots_provider ON provider_slots (provider, expires_ms)",
  `CREATE TABLE provider_usage (
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
  )`,
  "CREATE INDEX provider_usage_provider ON provider_usage (provider, recorded_ms)",
  `CREATE TABLE secrets (
    name        TEXT PRIMARY KEY,
    sites_json  TEXT NOT NULL,
    source_kind TEXT NOT NULL CHECK (source_kind IN ('stored', 'env', 'file')),
    sealed      TEXT NOT NULL,
    created_ms  INTEGER NOT NULL,
    updated_ms  INTEGER NOT NULL,
    mac         TEXT
  )`,
  `CREATE TABLE sites (
    name               TEXT PRIMARY KEY,
    origins_json       TEXT NOT NULL,
    login_url          TEXT,
    logged_in_selector TEXT,
    login_hosts_json   TEXT NOT NULL,
    sealed_session     TEXT,
    session_state      TEXT NOT NULL CHECK (session_state IN ('none', 'saved', 'expired')),
    session_saved_ms   INTEGER,
    defined_ms         INTEGER NOT NULL,
    created_ms         INTEGER NOT NULL,
    mac                TEXT
  )`,
  `CREATE TABLE site_grants (
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
  )`,
  "CREATE INDEX site_grants_site ON site_grants (site, created_ms)",
  `CREATE TABLE artifacts (
    operation_id TEXT NOT NULL,
    idx          INTEGER NOT NULL CHECK (idx >= 0),
    attempt      INTEGER NOT NULL,
    media_type   TEXT NOT NULL CHECK (media_type IN ('image/png', 'image/jpeg', 'application/pdf', 'application/zip', 'text/plain', 'application/octet-stream')),
    bytes        INTEGER NOT NULL CHECK (bytes >= 0),
    sha256       TEXT NOT NULL,
    sealed       TEXT NOT NULL,
    expires_ms   INTEGER,
    created_ms   INTEGER NOT NULL,
    PRIMARY KEY (operation_id, idx)
  )`,
  "CREATE INDEX artifacts_expiry ON artifacts (expires_ms) WHERE expires_ms IS NOT NULL",
  `CREATE TABLE owner_files (
    name       TEXT PRIMARY KEY,
    bytes      INTEGER NOT NULL CHECK (bytes >= 0),
    sha256     TEXT NOT NULL,
    sealed     TEXT NOT NULL,
    created_ms INTEGER NOT NULL
  )`,
];
