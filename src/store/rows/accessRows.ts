import type { ApiTokenRecord, AuthorizationCodeRecord, ClientAuthMethod, LockoutRecord, OAuthClientRecord, OAuthTokenRecord } from "../AccessStore.js";

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
  created_ms: number;
  revoked_ms: number | null;
}

export function toApiToken(row: ApiTokenRow, authentic: boolean): ApiTokenRecord {
  return { tokenId: row.token_id, name: row.name, createdMs: row.created_ms, revokedMs: row.revoked_ms, authentic };
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
