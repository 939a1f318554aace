import type { UnauthenticRow } from "./Store.js";

/**
 * Durable state of who may call errand over HTTP: the owner's password hash, OAuth clients,
 * authorization codes, token families (access and refresh tokens), API tokens and the consent
 * lockout. Secrets never reach a store: every token, code and client secret arrives already hashed
 * (keyed HMAC), and only hashes are stored and looked up.
 *
 * Every method that changes access state appends an `auth_changed` journal event in the same
 * transaction, so the journal says who was let in, when, and by which grant. `recordRequest` journals
 * what a caller did (submit, run, cancel, run the queue) under its client or token id.
 */
export interface AccessStore {
  close(): Promise<void>;
  /** Milliseconds since the epoch on the store's clock. */
  now(): Promise<number>;

  // ---- owner --------------------------------------------------------------------------------
  /**
   * The encoded slow hash of the owner password, or undefined when none was set. A stored hash that
   * fails its MAC (written without the key) is never returned: RowTamperedError.
   */
  readOwnerSecret(): Promise<string | undefined>;
  writeOwnerSecret(encoded: string): Promise<void>;

  // ---- owner-password lockout, per client address ----------------------------------------------
  /** The lockout record of one client address (a fresh one when it never failed). */
  readOwnerLockout(address: string): Promise<LockoutRecord>;
  /**
   * Applies `transition` to the address's record inside one write transaction (so concurrent
   * attempts are counted one after another, never from the same stale read), stores the record it
   * returns, journals `change` when given, and returns its result.
   */
  updateOwnerLockout<T>(address: string, transition: (record: LockoutRecord, nowMs: number) => LockoutTransition<T>): Promise<T>;
  /** Forgets the lockout of one address, or of every address (errand owner unlock); returns how many records it removed. */
  clearOwnerLockouts(address?: string): Promise<number>;

  // ---- OAuth clients --------------------------------------------------------------------------
  /**
   * Registers a client. When `maxClients` are already registered, the oldest client the owner never
   * approved is forgotten to make room; when every client was approved, nothing is registered.
   */
  registerClient(client: NewOAuthClient, maxClients: number): Promise<RegisterClientResult>;
  readClient(clientId: string): Promise<OAuthClientRecord | undefined>;

  // ---- authorization codes --------------------------------------------------------------------
  /** Stores a code the owner just approved (journals the approval). */
  saveAuthorizationCode(code: AuthorizationCodeRecord): Promise<void>;
  readAuthorizationCode(codeHash: string): Promise<AuthorizationCodeRecord | undefined>;
  /**
   * Marks the code used and starts a token family with its first tokens, atomically. A code used
   * before revokes the family its first use created (RFC 6749 §4.1.2) and issues nothing.
   */
  redeemAuthorizationCode(codeHash: string, tokens: NewTokenFamily): Promise<RedeemResult>;

  // ---- OAuth tokens ---------------------------------------------------------------------------
  readToken(tokenHash: string): Promise<OAuthTokenRecord | undefined>;
  /**
   * Uses a refresh token once: it becomes spent and the family gets a new access and refresh
   * token. A spent refresh token presented again revokes the whole family, unless it is a retry
   * (refreshRetry.isRetriedRefresh: within `graceMs` of the exchange, with `next` naming the pair
   * that exchange created, still unused): then nothing changes and the answer is `retried`.
   */
  rotateRefreshToken(refreshHash: string, next: NewTokenPair, graceMs: number): Promise<RotateResult>;
  /** Revokes the family of the token (access or refresh) if it belongs to `clientId`. */
  revokeTokenFamily(tokenHash: string, clientId: string, reason: string): Promise<boolean>;
  /** Revokes every OAuth token family (the owner's "log everything out"). Returns how many. */
  revokeAllTokenFamilies(reason: string): Promise<number>;
  /** Deletes codes and tokens that expired before `beforeMs`. */
  purgeExpired(beforeMs: number): Promise<number>;

  // ---- API tokens ---------------------------------------------------------------------------
  createApiToken(token: NewApiToken): Promise<void>;
  listApiTokens(): Promise<ApiTokenRecord[]>;
  /** The token with this hash, only when its row passes its MAC (revocation included); a failing row reads as unknown. */
  readApiToken(tokenHash: string): Promise<ApiTokenRecord | undefined>;
  /** Revokes by id or by name; false when no live token has it. */
  revokeApiToken(idOrName: string): Promise<ApiTokenRecord | undefined>;
  /** Records that the token authenticated a request at `atMs`, unless a use within the last minute is recorded already. */
  recordApiTokenUse(tokenId: string, atMs: number): Promise<void>;

  /**
   * The rows that grant authority this store refused since it was last asked because they failed
   * their MAC (table and id, never secret material), so the caller can report them.
   */
  takeRowRefusals(): UnauthenticRow[];

  // ---- audit ----------------------------------------------------------------------------------
  /** Journals one action of an authenticated caller (ids, codes and outcomes only; never task content). */
  recordRequest(record: RequestRecord): Promise<void>;
}

/**
 * The owner-password lockout of one client address, a small state machine:
 *   OPEN ──attempt reserved (before the hash is evaluated)──> OPEN (failures + 1)
 *   OPEN ──wrong password with failures at the threshold──> LOCKED (lockedUntilMs = now + base · 2^lockouts, lockouts + 1, failures 0)
 *   LOCKED ──time passes──> OPEN (lockouts kept, so the next lock lasts twice as long)
 *   OPEN ──right password──> OPEN (failures 0, lockouts 0); while LOCKED the right password is refused too
 *   any ──a day without failures, or errand owner unlock──> forgotten
 * Transitions are computed in src/interfaces/http/ownerLockout.ts; the store applies them atomically.
 */
export interface LockoutRecord {
  /** Attempts counted since the last lock or success (each counted before its password is checked). */
  failures: number;
  lockouts: number;
  lockedUntilMs: number | null;
  lastFailureMs: number | null;
}

export interface LockoutTransition<T> {
  /** The record to store; null deletes it (nothing left to remember). */
  next: LockoutRecord | null;
  result: T;
  /** Journaled as an auth_changed event when given. */
  change?: Record<string, unknown>;
}

export type ClientAuthMethod = "none" | "client_secret_post" | "client_secret_basic";

export interface NewOAuthClient {
  clientId: string;
  /** HMAC of the client secret; null for public clients. */
  secretHash: string | null;
  authMethod: ClientAuthMethod;
  clientName: string;
  redirectUris: string[];
  /** The registration response as returned to the client (RFC 7591), without the secret. */
  metadata: Record<string, unknown>;
}

export interface OAuthClientRecord extends NewOAuthClient {
  createdMs: number;
  /** When the owner last approved this client; null while never approved. */
  lastGrantMs: number | null;
}

export type RegisterClientResult = { kind: "registered"; evicted: string | null } | { kind: "full" };

export interface AuthorizationCodeRecord {
  codeHash: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  scopes: string[];
  resource: string;
  expiresMs: number;
  usedMs: number | null;
}

export interface NewTokenPair {
  accessHash: string;
  accessExpiresMs: number;
  refreshHash: string;
  refreshExpiresMs: number;
}

export interface NewTokenFamily extends NewTokenPair {
  familyId: string;
  clientId: string;
  scopes: string[];
  resource: string;
}

export type RedeemResult =
  | { kind: "redeemed" }
  | { kind: "missing" }
  | { kind: "expired" }
  /** The code had been used: its family (if any) is now revoked. */
  | { kind: "reused"; revokedFamily: string | null };

export interface OAuthTokenRecord {
  tokenHash: string;
  kind: "access" | "refresh";
  familyId: string;
  clientId: string;
  scopes: string[];
  resource: string;
  generation: number;
  expiresMs: number;
  /** Refresh tokens: when it was exchanged (spent). */
  usedMs: number | null;
  /** When the family was revoked; null while it is live. */
  revokedMs: number | null;
}

export type RotateResult =
  | { kind: "rotated"; familyId: string; generation: number }
  | { kind: "missing" }
  | { kind: "expired" }
  | { kind: "revoked" }
  /** A spent refresh token came back within the grace window with the pair its exchange created: that pair stands, nothing changed. */
  | { kind: "retried"; familyId: string; generation: number; rotatedMs: number }
  /** A spent refresh token came back: the family is revoked now. */
  | { kind: "reused"; familyId: string };

/**
 * What an API token's caller sees of the operations: "own" only those it submitted; "all" every
 * operation, as the owner does (an operator token, `errand token create --scope all`); "metrics"
 * only /metrics (a scraper's token, `--scope metrics`).
 */
export type ApiTokenScope = "own" | "all" | "metrics";

export interface NewApiToken {
  tokenId: string;
  name: string;
  tokenHash: string;
  /** "own" when absent. */
  scope?: ApiTokenScope;
  /** When it stops working (epoch ms); absent or null, never. */
  expiresMs?: number | null;
}

export interface ApiTokenRecord {
  tokenId: string;
  name: string;
  scope: ApiTokenScope;
  createdMs: number;
  revokedMs: number | null;
  /** When it stops working (epoch ms), or null: never. */
  expiresMs: number | null;
  /** When it last authenticated a request (to the minute: a use within a minute of the last is not written), or null. */
  lastUsedMs: number | null;
  /** False when the row fails its MAC: it was written without the key and grants nothing. */
  authentic: boolean;
}

export interface RequestRecord {
  /** "oauth:<clientId>" or "api:<tokenId>". */
  actor: string;
  via: "mcp" | "rest" | "oauth" | "console";
  action: string;
  operationId?: string;
  /** A status or error code: never content. */
  result: string;
}
