import type { JournalSealer } from "../../journal/createJournalSealer.js";
import type { UnauthenticRow } from "../Store.js";
import { OAUTH_FAMILIES_TABLE, OAUTH_TOKENS_TABLE, checkedRow } from "./authenticRows.js";
import type {
  ApiTokenRecord,
  ApiTokenScope,
  AuthorizationCodeRecord,
  ClientAuthMethod,
  LockoutRecord,
  OAuthClientRecord,
  OAuthTokenRecord,
} from "../AccessStore.js";

/** Row shapes of the access tables (migration 2) and their mapping to AccessStore records. */
export interface ClientRow {
  client_id: string;
  secret_hash: string | null;
  auth_method: string;
  client_name: string;
  redirect_uris: string;
  metadata_json: string;
  created_ms: number;
  last_grant_ms: number | null;
}

export function toClient(row: ClientRow): OAuthClientRecord {
  return {
    clientId: row.client_id,
    secretHash: row.secret_hash,
    authMethod: row.auth_method as ClientAuthMethod,
    clientName: row.client_name,
    redirectUris: JSON.parse(row.redirect_uris) as string[],
    metadata: JSON.parse(row.metadata_json) as Record<string, unknown>,
    createdMs: row.created_ms,
    lastGrantMs: row.last_grant_ms,
  };
}

export interface CodeRow {
  code_hash: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  scopes: string;
  resource: string;
  expires_ms: number;
  used_ms: number | null;
  family_id: string | null;
}

export function toCode(row: CodeRow): AuthorizationCodeRecord {
  return {
    codeHash: row.code_hash,
    clientId: row.client_id,
    redirectUri: row.redirect_uri,
    codeChallenge: row.code_challenge,
    scopes: splitScopes(row.scopes),
    resource: row.resource,
    expiresMs: row.expires_ms,
    usedMs: row.used_ms,
  };
}

/** A token row joined with its family. */
export interface TokenRow {
  token_hash: string;
  kind: string;
  family_id: string;
  client_id: string;
  scopes: string;
  resource: string;
  generation: number;
  expires_ms: number;
  used_ms: number | null;
  revoked_ms: number | null;
}

/**
 * The statement that reads a token with its family, both rows whole (the family's columns prefixed
 * f_) so that both MACs can be checked; `placeholder` is the backend's ("?" or "$1").
 */
export function tokenWithFamilySql(placeholder: string): string {
  return `SELECT t.*, f.client_id AS f_client_id, f.scopes AS f_scopes, f.resource AS f_resource, f.generation AS f_generation, f.created_ms AS f_created_ms,
    f.expires_ms AS f_expires_ms, f.revoked_ms AS f_revoked_ms, f.revoked_reason AS f_revoked_reason, f.mac AS f_mac
    FROM oauth_tokens t JOIN oauth_families f ON f.family_id = t.family_id WHERE t.token_hash = ${placeholder}`;
}

/**
 * The token as one record when both its row and its family's pass their MACs (the family holds the
 * client, scopes, resource and revocation; the token its kind, expiry and whether it was spent);
 * undefined when either fails, which grants nothing.
 */
export function authenticToken(
  sealer: JournalSealer,
  joined: Readonly<Record<string, unknown>> | undefined,
  refused: Map<string, UnauthenticRow>,
): TokenRow | undefined {
  if (joined === undefined) return undefined;
  const family = {
    family_id: joined["family_id"],
    client_id: joined["f_client_id"],
    scopes: joined["f_scopes"],
    resource: joined["f_resource"],
    generation: joined["f_generation"],
    created_ms: joined["f_created_ms"],
    expires_ms: joined["f_expires_ms"],
    revoked_ms: joined["f_revoked_ms"],
    revoked_reason: joined["f_revoked_reason"],
    mac: joined["f_mac"],
  };
  const token = checkedRow(sealer, OAUTH_TOKENS_TABLE, joined, refused);
  if (checkedRow(sealer, OAUTH_FAMILIES_TABLE, family, refused) === undefined || token === undefined) return undefined;
  return {
    token_hash: joined["token_hash"] as string,
    kind: joined["kind"] as string,
    family_id: joined["family_id"] as string,
    client_id: family.client_id as string,
    scopes: family.scopes as string,
    resource: family.resource as string,
    generation: joined["generation"] as number,
    expires_ms: joined["expires_ms"] as number,
    used_ms: joined["used_ms"] as number | null,
    revoked_ms: family.revoked_ms as number | null,
  };
}

export function toToken(row: TokenRow): OAuthTokenRecord {
  return {
    tokenHash: row.token_hash,
    kind: row.kind as OAuthTokenRecord["kind"],
    familyId: row.family_id,
    clientId: row.client_id,
    scopes: splitScopes(row.scopes),
    resource: row.resource,
    generation: row.generation,
    expiresMs: row.expires_ms,
    usedMs: row.used_ms,
    revokedMs: row.revoked_ms,
  };
}

export interface ApiTokenRow {
  token_id: string;
  name: string;
  scope: string;
  created_ms: number;
  revoked_ms: number | null;
  expires_ms: number | string | null;
  last_used_ms: number | string | null;
}

const API_TOKEN_SCOPES: readonly string[] = ["own", "all", "metrics"] satisfies ApiTokenScope[];

/** PostgreSQL's BIGINT arrives as text; SQLite's INTEGER as a number. */
const msOrNull = (value: number | string | null): number | null => (value === null ? null : Number(value));

export function toApiToken(row: ApiTokenRow, authentic: boolean): ApiTokenRecord {
  return {
    tokenId: row.token_id,
    name: row.name,
    scope: API_TOKEN_SCOPES.includes(row.scope) ? (row.scope as ApiTokenScope) : "own",
    createdMs: Number(row.created_ms),
    revokedMs: msOrNull(row.revoked_ms),
    expiresMs: msOrNull(row.expires_ms),
    lastUsedMs: msOrNull(row.last_used_ms),
    authentic,
  };
}

export interface LockoutRow {
  failures: number;
  lockouts: number;
  locked_until_ms: number | null;
  last_failure_ms: number | null;
}

export function toLockout(row: LockoutRow): LockoutRecord {
  return { failures: row.failures, lockouts: row.lockouts, lockedUntilMs: row.locked_until_ms, lastFailureMs: row.last_failure_ms };
}

export function joinScopes(scopes: readonly string[]): string {
  return scopes.join(" ");
}

function splitScopes(text: string): string[] {
  return text === "" ? [] : text.split(" ");
}
