import { DATABASE_URL_RULE, databaseBackendOf } from "./databaseUrl.js";
import { ConfigError } from "./configError.js";
import { parseDuration } from "./parseDuration.js";
import type { OwnerApprovalRule } from "./parseOwnerApproval.js";
import { DEFAULT_OWNER_APPROVAL, parseOwnerApproval } from "./parseOwnerApproval.js";
import { resolveErrandHome } from "./resolveErrandHome.js";
import { DAY, HOUR, MINUTE, MiB, SECOND } from "./units.js";

/**
 * Everything the queue, runner and journal need to know at run time. Resolved in this order:
 * built-in defaults → environment (ERRAND_*) → explicit overrides (command-line flags, tests).
 * A configuration file layer will slot in between defaults and environment when it exists.
 */
export interface RuntimeConfig {
  /** Directory holding errand.db and keys/. Env ERRAND_HOME; default $XDG_STATE_HOME/errand or ~/.local/state/errand (see resolveErrandHome). */
  errandHome: string;
  /** How long a claimed operation belongs to its runner without a heartbeat (ms). Env ERRAND_LEASE_MS (at least MIN_LEASE_MS). Default 90 s. */
  leaseMs: number;
  /** How often a runner renews its lease (ms). Derived: a third of the lease, so two heartbeats may be missed. */
  heartbeatMs: number;
  /** Delay before a failed read_only operation runs again (ms). Env ERRAND_RETRY_DELAY_MS. Default 10 s. */
  retryDelayMs: number;
  /** Attempts an operation may use, counting attempts lost to a crash. Env ERRAND_MAX_ATTEMPTS. Default 2. */
  maxAttempts: number;
  /** Browser time one attempt gets when the task sets no timeouts.taskMs (ms). Env ERRAND_BROWSER_TIMEOUT_MS. Default 30 s, from bench/budget (docs/BENCHMARKS.md "budget"). */
  browserTimeoutMs: number;
  /** Bytes of journal and retained task documents after which submit refuses new operations. Env ERRAND_JOURNAL_QUOTA_BYTES. Default 64 MiB. */
  journalQuotaBytes: number;
  /** Most bytes of one main-frame document errand fetches for the browser; past it the step fails document_too_large. Env ERRAND_MAX_DOCUMENT_BYTES. Default 10 MiB. */
  maxDocumentBytes: number;
  /**
   * Most bytes of the files one attempt's steps download from the task's hosts, together; a download
   * past it is refused (download_too_large). Env ERRAND_DOWNLOAD_MAX_BYTES. Default 20 MiB, at most
   * 64 MiB (receipt/artifactTypes ARTIFACT_LIMITS.downloadBytesCeiling: what the store keeps).
   */
  downloadMaxBytes: number;
  /** How long one SQLite statement waits for the write lock before errand retries it asynchronously (ms). Env ERRAND_BUSY_TIMEOUT_MS. Default 1 s. */
  busyTimeoutMs: number;
  /** Consecutive provider-class failures that open a provider's circuit. Default 3. */
  breakerThreshold: number;
  /** How long an open circuit refuses work before it lets one probe through (ms). Default 15 min. */
  breakerCooldownMs: number;
  /** How often a runner looks for a cancel request on the operation it is running (ms). Default 1 s. */
  cancelPollMs: number;
  /**
   * Which tasks wait for the owner's approval before anything runs (see parseOwnerApproval).
   * Env ERRAND_OWNER_APPROVAL. Default reversible_write,consequential,secret (every write, every secret).
   */
  ownerApproval: readonly OwnerApprovalRule[];
  /** How long a task waits for the owner before it ends BLOCKED approval_expired (ms). Env ERRAND_APPROVAL_TTL (15m, 1h, ...). Default 15 min. */
  approvalTtlMs: number;
  /** Attempts a worker pool (errand serve, errand runner --watch) runs at once, each in its own browser context or provider session. Env ERRAND_CONCURRENCY. Default 2. */
  concurrency: number;
  /** How long a finished operation's extracted values and provider session id stay (sealed) for collect (ms). Env ERRAND_RESULT_TTL (90s, 10m, 1h, ...). Default 10 min. */
  resultTtlMs: number;
  /** How long a stopping worker pool (SIGTERM) lets running attempts finish before it exits; their leases cover the rest (ms). Env ERRAND_SHUTDOWN_GRACE_MS. Default 30 s. */
  shutdownGraceMs: number;
  /** How long a live login handoff in the owner console stays open before it closes (ms). Env ERRAND_LOGIN_TTL (5m, 10m, 1h). Default 10 min. */
  loginTtlMs: number;
  /**
   * How long after it finished an operation is compacted by `errand serve`'s schedule (ms), or null
   * when serve compacts nothing (the operator runs `errand journal compact`). Compacting turns a
   * finished operation (completed, blocked, cancelled; never uncertain) into an authenticated
   * tombstone: its final status stays, its receipt and events go. Env ERRAND_COMPACT_AFTER (a
   * duration of at least COMPACT_AFTER_MIN_MS, or "off"). Default 30 days.
   */
  compactAfterMs: number | null;
  /**
   * How many pre-migration copies of the SQLite database (errand.db.pre-vN-TIME-PID.bak) a
   * migration leaves beside it, the one it just made included; older ones are deleted. Env
   * ERRAND_KEEP_MIGRATION_BACKUPS (1-1000). Default 3.
   */
  keepMigrationBackups: number;
  /**
   * The database every command uses instead of ERRAND_HOME/errand.db: PostgreSQL (postgres://…) or
   * libSQL (file:…, libsql://…; config/databaseUrl.ts decides which), or null for the embedded SQLite default. Env ERRAND_DATABASE_URL (or ERRAND_DATABASE_URL_FILE), or
   * --database-url on any command. The master key stays in ERRAND_HOME/keys either way.
   */
  databaseUrl: string | null;
}

export const DEFAULT_RUNTIME_CONFIG: Readonly<Omit<RuntimeConfig, "errandHome">> = Object.freeze({
  databaseUrl: null,
  leaseMs: 90 * SECOND,
  heartbeatMs: 30 * SECOND,
  retryDelayMs: 10 * SECOND,
  maxAttempts: 2,
  browserTimeoutMs: 30 * SECOND,
  journalQuotaBytes: 64 * MiB,
  maxDocumentBytes: 10 * MiB,
  downloadMaxBytes: 20 * MiB,
  busyTimeoutMs: 1 * SECOND,
  breakerThreshold: 3,
  breakerCooldownMs: 15 * MINUTE,
  cancelPollMs: 1 * SECOND,
  ownerApproval: DEFAULT_OWNER_APPROVAL,
  approvalTtlMs: 15 * MINUTE,
  concurrency: 2,
  resultTtlMs: 10 * MINUTE,
  shutdownGraceMs: 30 * SECOND,
  loginTtlMs: 10 * MINUTE,
  compactAfterMs: 30 * DAY,
  keepMigrationBackups: 3,
});

/** Bounds of ERRAND_RESULT_TTL. */
export const RESULT_TTL_BOUNDS = { min: 1 * SECOND, max: 1 * DAY } as const;

/** Bounds of ERRAND_LOGIN_TTL. */
export const LOGIN_TTL_BOUNDS = { min: 30 * SECOND, max: 1 * HOUR } as const;

/**
 * The shortest ERRAND_COMPACT_AFTER errand accepts: a day, longer than any ERRAND_RESULT_TTL, so a
 * client that comes back for its receipt the same day finds it, and a slip of unit ("6m" meant as
 * months is six minutes) is refused instead of compacting receipts minutes after they are written.
 */
export const COMPACT_AFTER_MIN_MS = 1 * DAY;

/** Bounds of ERRAND_APPROVAL_TTL. */
export const APPROVAL_TTL_BOUNDS = { min: 1 * SECOND, max: 7 * DAY } as const;

export { ConfigError } from "./configError.js";

interface IntegerSetting {
  env: string;
  field: keyof Omit<
    RuntimeConfig,
    "errandHome" | "heartbeatMs" | "ownerApproval" | "approvalTtlMs" | "resultTtlMs" | "loginTtlMs" | "compactAfterMs" | "databaseUrl"
  >;
  min: number;
  max: number;
  /** Why the minimum is what it is, said when a value below it is refused. */
  minReason?: string;
}

/**
 * The shortest lease errand accepts (ms). A runner renews every third of its lease, so a lease this
 * short already survives a stall of only about a second (a paused process, a loaded machine, a busy
 * SQLite lock the connection waits for synchronously); a shorter one would be lost by live runners,
 * and every read they were running would run again.
 */
export const MIN_LEASE_MS = 2 * SECOND;

const ENV_SETTINGS: readonly IntegerSetting[] = [
  {
    env: "ERRAND_LEASE_MS",
    field: "leaseMs",
    min: MIN_LEASE_MS,
    max: 24 * 60 * MINUTE,
    minReason:
      "a shorter lease is lost by a live runner that is merely stalled (a loaded machine, a paused process), and its reads run again; keep it at 30000 or more on a busy machine",
  },
  { env: "ERRAND_RETRY_DELAY_MS", field: "retryDelayMs", min: 0, max: 24 * 60 * MINUTE },
  { env: "ERRAND_MAX_ATTEMPTS", field: "maxAttempts", min: 1, max: 10 },
  { env: "ERRAND_BROWSER_TIMEOUT_MS", field: "browserTimeoutMs", min: 100, max: 60 * MINUTE },
  { env: "ERRAND_JOURNAL_QUOTA_BYTES", field: "journalQuotaBytes", min: 4096, max: Number.MAX_SAFE_INTEGER },
  { env: "ERRAND_MAX_DOCUMENT_BYTES", field: "maxDocumentBytes", min: 1024, max: 1024 * MiB },
  { env: "ERRAND_DOWNLOAD_MAX_BYTES", field: "downloadMaxBytes", min: 1024, max: 64 * MiB },
  { env: "ERRAND_BUSY_TIMEOUT_MS", field: "busyTimeoutMs", min: 0, max: 60 * SECOND },
  { env: "ERRAND_CONCURRENCY", field: "concurrency", min: 1, max: 64 },
  { env: "ERRAND_SHUTDOWN_GRACE_MS", field: "shutdownGraceMs", min: 0, max: 60 * MINUTE },
  // At least 1: the copy a migration has just made is always kept (the way back if it went wrong).
  { env: "ERRAND_KEEP_MIGRATION_BACKUPS", field: "keepMigrationBackups", min: 1, max: 1000 },
];

/**
 * Resolves the runtime configuration. Throws ConfigError for an environment value that is not an
 * integer within its bounds: a typo must not silently fall back to a default.
 */
export function resolveRuntimeConfig(env: NodeJS.ProcessEnv, overrides: Partial<RuntimeConfig> = {}): RuntimeConfig {
  const config: RuntimeConfig = { ...DEFAULT_RUNTIME_CONFIG, errandHome: resolveErrandHome(env).path };
  for (const setting of ENV_SETTINGS) {
    const raw = env[setting.env];
    if (raw === undefined || raw === "") continue;
    config[setting.field] = parseBoundedInteger(raw, setting);
  }
  const approval = env["ERRAND_OWNER_APPROVAL"];
  if (approval !== undefined && approval !== "") config.ownerApproval = parseOwnerApproval(approval);
  const ttl = env["ERRAND_APPROVAL_TTL"];
  if (ttl !== undefined && ttl !== "") config.approvalTtlMs = parseApprovalTtl(ttl);
  const databaseUrl = env["ERRAND_DATABASE_URL"];
  if (databaseUrl !== undefined && databaseUrl !== "") config.databaseUrl = parseDatabaseUrl(databaseUrl);
  const loginTtl = env["ERRAND_LOGIN_TTL"];
  if (loginTtl !== undefined && loginTtl !== "") config.loginTtlMs = parseLoginTtl(loginTtl);
  const resultTtl = env["ERRAND_RESULT_TTL"];
  if (resultTtl !== undefined && resultTtl !== "") config.resultTtlMs = parseResultTtl(resultTtl);
  const compactAfter = env["ERRAND_COMPACT_AFTER"];
  if (compactAfter !== undefined && compactAfter !== "") config.compactAfterMs = parseCompactAfter(compactAfter);
  const explicitHeartbeat = overrides.heartbeatMs !== undefined;
  Object.assign(config, withoutUndefined(overrides));
  if (!explicitHeartbeat) config.heartbeatMs = Math.max(100, Math.floor(config.leaseMs / 3));
  return config;
}

/** Only the scheme is checked here (config/databaseUrl.ts) (the store checks the rest when it opens): a typo must not silently fall back to SQLite. */
function parseDatabaseUrl(raw: string): string {
  const text = raw.trim();
  if (databaseBackendOf(text) === null) throw new ConfigError(DATABASE_URL_RULE);
  return text;
}

function parseApprovalTtl(raw: string): number {
  const ms = parseDuration(raw);
  if (ms === undefined || ms < APPROVAL_TTL_BOUNDS.min || ms > APPROVAL_TTL_BOUNDS.max) {
    throw new ConfigError(
      `ERRAND_APPROVAL_TTL="${raw.slice(0, 40)}" is not usable: give a duration from 1s to 7d written as a number and one unit (90s, 15m, 2h).`,
    );
  }
  return ms;
}

function parseLoginTtl(raw: string): number {
  const ms = parseDuration(raw);
  if (ms === undefined || ms < LOGIN_TTL_BOUNDS.min || ms > LOGIN_TTL_BOUNDS.max) {
    throw new ConfigError(
      `ERRAND_LOGIN_TTL="${raw.slice(0, 40)}" is not usable: give a duration from 30s to 1h written as a number and one unit (90s, 10m, 1h).`,
    );
  }
  return ms;
}

function parseResultTtl(raw: string): number {
  const ms = parseDuration(raw);
  if (ms === undefined || ms < RESULT_TTL_BOUNDS.min || ms > RESULT_TTL_BOUNDS.max) {
    throw new ConfigError(
      `ERRAND_RESULT_TTL="${raw.slice(0, 40)}" is not usable: give a duration from 1s to 1d written as a number and one unit (90s, 10m, 1h).`,
    );
  }
  return ms;
}

function parseCompactAfter(raw: string): number | null {
  const text = raw.trim();
  if (text.toLowerCase() === "off") return null;
  const ms = parseDuration(text);
  if (ms === undefined || ms < COMPACT_AFTER_MIN_MS) {
    const why = ms === undefined ? "" : `; ${text} is shorter than a day, and receipts would be compacted while clients may still collect them`;
    throw new ConfigError(
      `ERRAND_COMPACT_AFTER="${raw.slice(0, 40)}" is not usable: give how long after it finished an operation is compacted, as a number and one unit of at least 1d (30d, 12w, 36h), or "off" to leave compaction to "errand journal compact"${why}.`,
    );
  }
  return ms;
}

function parseBoundedInteger(raw: string, setting: IntegerSetting): number {
  const value = /^\d{1,16}$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (Number.isSafeInteger(value) && value < setting.min && setting.minReason !== undefined) {
    throw new ConfigError(`${setting.env}="${raw.slice(0, 40)}" is too short: the minimum is ${setting.min}, because ${setting.minReason}.`);
  }
  if (!Number.isSafeInteger(value) || value < setting.min || value > setting.max) {
    throw new ConfigError(`${setting.env}="${raw.slice(0, 40)}" is not usable: give an integer from ${setting.min} to ${setting.max}.`);
  }
  return value;
}

function withoutUndefined(overrides: Partial<RuntimeConfig>): Partial<RuntimeConfig> {
  return Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined));
}
