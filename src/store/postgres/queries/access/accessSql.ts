import type {
  ApiTokenRecord,
  AuthorizationCodeRecord,
  LockoutRecord,
  LockoutTransition,
  NewApiToken,
  NewOAuthClient,
  NewTokenFamily,
  NewTokenPair,
  OAuthClientRecord,
  OAuthTokenRecord,
  RedeemResult,
  RegisterClientResult,
  RequestRecord,
  RotateResult,
} from "../../../AccessStore.js";
import type { ApiTokenRow, ClientRow, CodeRow, LockoutRow } from "../../../rows/accessRows.js";
import { authenticToken, joinScopes, toApiToken, toClient, toCode, toLockout, toToken, tokenWithFamilySql } from "../../../rows/accessRows.js";
import {
  API_TOKENS_TABLE,
  OAUTH_CLIENTS_TABLE,
  OAUTH_CODES_TABLE,
  OAUTH_FAMILIES_TABLE,
  OAUTH_TOKENS_TABLE,
  OWNER_SECRET_TABLE,
} from "../../../rows/authenticRows.js";
import { RowTamperedError } from "../../../storeErrors.js";
import { appendJournalEvent } from "../../appendJournalEvent.js";
import { isRetriedRefresh } from "../../../refreshRetry.js";
import { authenticRow, sealRow } from "../../authenticTablePg.js";
import type { PgTx } from "../../pgContext.js";

/**
 * The access tables on PostgreSQL. Every write transaction of the access store first takes one
 * transaction-scoped advisory lock (lockAccess), so access changes are applied one after another as
 * SQLite's BEGIN IMMEDIATE applies them: a code is redeemed once, a refresh token rotated once, a
 * lockout counted from the record as it stands. Access writes are rare (logins, grants), so one
 * lock costs nothing that matters. The journal head is still locked last.
 */
export async function lockAccess(tx: PgTx): Promise<void> {
  await tx.run("SELECT pg_advisory_xact_lock(hashtext('errand-access'))");
}

/** Journals a change of access state (operation-less, so compaction folds it away once old). */
async function journalAuthChange(tx: PgTx, change: string, details: Record<string, unknown>): Promise<void> {
  await appendJournalEvent(tx, { type: "auth_changed", operationId: null, body: { change, ...details } }, tx.now);
}

// ---- owner secret ------------------------------------------------------------------------------

/** The owner's password hash; undefined when none was set; RowTamperedError when the row fails its MAC. */
export async function selectOwnerSecret(tx: PgTx): Promise<string | undefined> {
  const row = await tx.one<{ encoded: string }>("SELECT * FROM owner_secret WHERE id = 1");
  if (row === undefined) return undefined;
  if (authenticRow(tx, OWNER_SECRET_TABLE, row) === undefined) throw RowTamperedError.ownerPassword();
  return row.encoded;
}

export async function upsertOwnerSecret(tx: PgTx, encoded: string): Promise<void> {
  await tx.run(
    "INSERT INTO owner_secret (id, encoded, updated_ms) VALUES (1, $1, $2) ON CONFLICT (id) DO UPDATE SET encoded = excluded.encoded, updated_ms = excluded.updated_ms",
    [encoded, tx.now],
  );
  await sealRow(tx, OWNER_SECRET_TABLE, [1]);
  await journalAuthChange(tx, "owner_password_set", {});
}

// ---- owner lockout -----------------------------------------------------------------------------

const FRESH: LockoutRecord = { failures: 0, lockouts: 0, lockedUntilMs: null, lastFailureMs: null };

export async function selectOwnerLockout(tx: PgTx, address: string): Promise<LockoutRecord> {
  const row = await tx.one<LockoutRow>("SELECT failures, lockouts, locked_until_ms, last_failure_ms FROM owner_lockouts WHERE address = $1", [address]);
  return row === undefined ? FRESH : toLockout(row);
}

export async function updateOwnerLockout<T>(tx: PgTx, address: string, transition: (record: LockoutRecord, nowMs: number) => LockoutTransition<T>): Promise<T> {
  const { next, result, change } = transition(await selectOwnerLockout(tx, address), tx.now);
  if (next === null) {
    await tx.run("DELETE FROM owner_lockouts WHERE address = $1", [address]);
  } else {
    await tx.run(
      `INSERT INTO owner_lockouts (address, failures, lockouts, locked_until_ms, last_failure_ms, updated_ms) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (address) DO UPDATE SET failures = excluded.failures, lockouts = excluded.lockouts, locked_until_ms = excluded.locked_until_ms,
         last_failure_ms = excluded.last_failure_ms, updated_ms = excluded.updated_ms`,
      [address, next.failures, next.lockouts, next.lockedUntilMs, next.lastFailureMs, tx.now],
    );
  }
  if (change !== undefined) await journalAuthChange(tx, typeof change["change"] === "string" ? change["change"] : "owner_lockout", { ...change, address });
  return result;
}

export async function clearOwnerLockouts(tx: PgTx, address: string | undefined): Promise<number> {
  const removed = address === undefined ? await tx.run("DELETE FROM owner_lockouts") : await tx.run("DELETE FROM owner_lockouts WHERE address = $1", [address]);
  await journalAuthChange(tx, "owner_unlocked", { address: address ?? "all", removed });
  return removed;
}

// ---- OAuth clients -----------------------------------------------------------------------------

async function selectClientRow(tx: PgTx, clientId: string): Promise<ClientRow | undefined> {
  return authenticRow(tx, OAUTH_CLIENTS_TABLE, await tx.one<ClientRow>("SELECT * FROM oauth_clients WHERE client_id = $1", [clientId]));
}

/** The client when its row passes its MAC (its redirect URIs, secret hash and method are under it); undefined otherwise. */
export async function selectClient(tx: PgTx, clientId: string): Promise<OAuthClientRecord | undefined> {
  const row = await selectClientRow(tx, clientId);
  return row === undefined ? undefined : toClient(row);
}

/** Registers a client, first forgetting the oldest never-approved one when `maxClients` are registered. */
export async function registerClient(tx: PgTx, client: NewOAuthClient, maxClients: number): Promise<RegisterClientResult> {
  let evicted: string | null = null;
  const count = (await tx.one<{ n: number }>("SELECT count(*) AS n FROM oauth_clients"))?.n ?? 0;
  if (count >= maxClients) {
    const victim = await tx.one<{ client_id: string }>(
      "SELECT client_id FROM oauth_clients WHERE last_grant_ms IS NULL ORDER BY created_ms, client_id LIMIT 1",
    );
    if (victim === undefined) return { kind: "full" };
    await tx.run("DELETE FROM oauth_clients WHERE client_id = $1", [victim.client_id]);
    evicted = victim.client_id;
  }
  await tx.run(
    `INSERT INTO oauth_clients (client_id, secret_hash, auth_method, client_name, redirect_uris, metadata_json, created_ms, last_grant_ms)
     VALUES ($1, $2, $3, $4, $5, $6, $7, NULL)`,
    [client.clientId, client.secretHash, client.authMethod, client.clientName, JSON.stringify(client.redirectUris), JSON.stringify(client.metadata), tx.now],
  );
  await sealRow(tx, OAUTH_CLIENTS_TABLE, [client.clientId]);
  const redirectHosts = [...new Set(client.redirectUris.map(hostOf))];
  await journalAuthChange(tx, "client_registered", {
    clientId: client.clientId,
    clientName: client.clientName.slice(0, 100),
    authMethod: client.authMethod,
    redirectHosts,
    evicted,
  });
  return { kind: "registered", evicted };
}

function hostOf(uri: string): string {
  try {
    return new URL(uri).host;
  } catch {
    return "?";
  }
}

// ---- authorization codes -----------------------------------------------------------------------

export async function insertCode(tx: PgTx, code: AuthorizationCodeRecord): Promise<void> {
  await tx.run(
    `INSERT INTO oauth_codes (code_hash, client_id, redirect_uri, code_challenge, scopes, resource, expires_ms, used_ms, family_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, NULL, NULL)`,
    [code.codeHash, code.clientId, code.redirectUri, code.codeChallenge, joinScopes(code.scopes), code.resource, code.expiresMs],
  );
  await sealRow(tx, OAUTH_CODES_TABLE, [code.codeHash]);
  // Marked approved only when authentic: re-sealing an edited client row would bless the edit.
  if ((await selectClientRow(tx, code.clientId)) !== undefined) {
    await tx.run("UPDATE oauth_clients SET last_grant_ms = $1 WHERE client_id = $2", [tx.now, code.clientId]);
    await sealRow(tx, OAUTH_CLIENTS_TABLE, [code.clientId]);
  }
  await journalAuthChange(tx, "consent_approved", { clientId: code.clientId, scopes: code.scopes, resource: code.resource });
}

/** The code's row when it passes its MAC (client, redirect URI, challenge, scopes, expiry and use are under it). */
async function selectCodeRow(tx: PgTx, codeHash: string): Promise<CodeRow | undefined> {
  return authenticRow(tx, OAUTH_CODES_TABLE, await tx.one<CodeRow>("SELECT * FROM oauth_codes WHERE code_hash = $1", [codeHash]));
}

export async function selectCode(tx: PgTx, codeHash: string): Promise<AuthorizationCodeRecord | undefined> {
  const row = await selectCodeRow(tx, codeHash);
  return row === undefined ? undefined : toCode(row);
}

/** Single use: the first redemption starts a token family; any later one revokes that family. */
export async function redeemCode(tx: PgTx, codeHash: string, tokens: NewTokenFamily): Promise<RedeemResult> {
  const row = await selectCodeRow(tx, codeHash);
  if (row === undefined) return { kind: "missing" };
  if (row.used_ms !== null) {
    const family = row.family_id;
    if (family !== null && (await revokeFamily(tx, family, "code_reuse")))
      await journalAuthChange(tx, "family_revoked", { familyId: family, reason: "code_reuse" });
    return { kind: "reused", revokedFamily: family };
  }
  if (row.expires_ms <= tx.now) return { kind: "expired" };
  await tx.run("UPDATE oauth_codes SET used_ms = $1, family_id = $2 WHERE code_hash = $3", [tx.now, tokens.familyId, codeHash]);
  await sealRow(tx, OAUTH_CODES_TABLE, [codeHash]);
  await tx.run(
    `INSERT INTO oauth_families (family_id, client_id, scopes, resource, generation, created_ms, expires_ms, revoked_ms, revoked_reason)
     VALUES ($1, $2, $3, $4, 1, $5, $6, NULL, NULL)`,
    [tokens.familyId, tokens.clientId, joinScopes(tokens.scopes), tokens.resource, tx.now, tokens.refreshExpiresMs],
  );
  await sealRow(tx, OAUTH_FAMILIES_TABLE, [tokens.familyId]);
  await insertTokenPair(tx, tokens.familyId, 1, tokens);
  await journalAuthChange(tx, "tokens_issued", { clientId: tokens.clientId, familyId: tokens.familyId, scopes: tokens.scopes });
  return { kind: "redeemed" };
}

// ---- OAuth tokens ------------------------------------------------------------------------------

/** A token with its family's client, scopes, resource and revocation, when both rows pass their MACs. */
export async function selectToken(tx: PgTx, tokenHash: string): Promise<OAuthTokenRecord | undefined> {
  const row = authenticToken(tx.ctx.sealer, await tx.one<Record<string, unknown>>(tokenWithFamilySql("$1"), [tokenHash]), tx.ctx.rowRefusals);
  return row === undefined ? undefined : toToken(row);
}

async function insertTokenPair(tx: PgTx, familyId: string, generation: number, pair: NewTokenPair): Promise<void> {
  await tx.run(
    "INSERT INTO oauth_tokens (token_hash, family_id, kind, generation, expires_ms, used_ms, created_ms) VALUES ($1, $2, 'access', $3, $4, NULL, $5), ($6, $2, 'refresh', $3, $7, NULL, $5)",
    [pair.accessHash, familyId, generation, pair.accessExpiresMs, tx.now, pair.refreshHash, pair.refreshExpiresMs],
  );
  await sealRow(tx, OAUTH_TOKENS_TABLE, [pair.accessHash]);
  await sealRow(tx, OAUTH_TOKENS_TABLE, [pair.refreshHash]);
}

/** Revokes a live family. Revoking only takes authority away, so the row is sealed as revoked whatever it held. */
async function revokeFamily(tx: PgTx, familyId: string, reason: string): Promise<boolean> {
  const changed =
    (await tx.run("UPDATE oauth_families SET revoked_ms = $1, revoked_reason = $2 WHERE family_id = $3 AND revoked_ms IS NULL", [tx.now, reason, familyId])) >
    0;
  if (changed) await sealRow(tx, OAUTH_FAMILIES_TABLE, [familyId]);
  return changed;
}

/** Exchanges a refresh token once; a spent one presented again revokes the family. */
export async function rotateRefresh(tx: PgTx, refreshHash: string, next: NewTokenPair, graceMs: number): Promise<RotateResult> {
  const token = await selectToken(tx, refreshHash);
  if (token === undefined || token.kind !== "refresh") return { kind: "missing" };
  if (token.revokedMs !== null) return { kind: "revoked" };
  if (token.usedMs !== null && isRetriedRefresh(token, await selectToken(tx, next.refreshHash), graceMs, tx.now)) {
    await journalAuthChange(tx, "refresh_retried", { familyId: token.familyId, clientId: token.clientId, generation: token.generation + 1 });
    return { kind: "retried", familyId: token.familyId, generation: token.generation + 1, rotatedMs: token.usedMs };
  }
  if (token.usedMs !== null) {
    await revokeFamily(tx, token.familyId, "refresh_reuse");
    await journalAuthChange(tx, "family_revoked", { familyId: token.familyId, clientId: token.clientId, reason: "refresh_reuse" });
    return { kind: "reused", familyId: token.familyId };
  }
  if (token.expiresMs <= tx.now) return { kind: "expired" };
  const generation = token.generation + 1;
  // The token and its family were just read and found authentic, so sealing them again blesses nothing.
  await tx.run("UPDATE oauth_tokens SET used_ms = $1 WHERE token_hash = $2", [tx.now, refreshHash]);
  await sealRow(tx, OAUTH_TOKENS_TABLE, [refreshHash]);
  await insertTokenPair(tx, token.familyId, generation, next);
  await tx.run("UPDATE oauth_families SET generation = $1, expires_ms = $2 WHERE family_id = $3", [generation, next.refreshExpiresMs, token.familyId]);
  await sealRow(tx, OAUTH_FAMILIES_TABLE, [token.familyId]);
  await journalAuthChange(tx, "tokens_rotated", { familyId: token.familyId, clientId: token.clientId, generation });
  return { kind: "rotated", familyId: token.familyId, generation };
}

/** RFC 7009: revokes the token's whole family when the token belongs to the calling client. */
export async function revokeByToken(tx: PgTx, tokenHash: string, clientId: string, reason: string): Promise<boolean> {
  const token = await selectToken(tx, tokenHash);
  if (token === undefined || token.clientId !== clientId) return false;
  const revoked = await revokeFamily(tx, token.familyId, reason);
  if (revoked) await journalAuthChange(tx, "family_revoked", { familyId: token.familyId, clientId, reason });
  return revoked;
}

export async function revokeAllFamilies(tx: PgTx, reason: string): Promise<number> {
  let changed = 0;
  for (const { family_id } of await tx.rows<{ family_id: string }>("SELECT family_id FROM oauth_families WHERE revoked_ms IS NULL")) {
    if (await revokeFamily(tx, family_id, reason)) changed += 1;
  }
  if (changed > 0) await journalAuthChange(tx, "all_families_revoked", { families: changed, reason });
  return changed;
}

/** Forgets codes, tokens and families that can no longer be used. */
export async function purgeExpired(tx: PgTx, beforeMs: number): Promise<number> {
  const tokens = await tx.run("DELETE FROM oauth_tokens WHERE expires_ms < $1", [beforeMs]);
  const codes = await tx.run("DELETE FROM oauth_codes WHERE expires_ms < $1", [beforeMs]);
  const families = await tx.run(
    "DELETE FROM oauth_families f WHERE f.expires_ms < $1 AND NOT EXISTS (SELECT 1 FROM oauth_tokens t WHERE t.family_id = f.family_id)",
    [beforeMs],
  );
  return tokens + codes + families;
}

// ---- API tokens --------------------------------------------------------------------------------

export async function insertApiToken(tx: PgTx, token: NewApiToken): Promise<void> {
  const scope = token.scope ?? "own";
  const expiresMs = token.expiresMs ?? null;
  await tx.run("INSERT INTO api_tokens (token_id, name, token_hash, scope, created_ms, revoked_ms, expires_ms) VALUES ($1, $2, $3, $4, $5, NULL, $6)", [
    token.tokenId,
    token.name,
    token.tokenHash,
    scope,
    tx.now,
    expiresMs,
  ]);
  await sealRow(tx, API_TOKENS_TABLE, [token.tokenId]);
  await journalAuthChange(tx, "api_token_created", { tokenId: token.tokenId, name: token.name, scope, expiresMs });
}

/** A use within a minute of the recorded one is not written (as on SQLite: src/store/sqlite/queries/access/apiTokenSql.ts). */
export async function recordApiTokenUse(tx: PgTx, tokenId: string, atMs: number): Promise<void> {
  await tx.run("UPDATE api_tokens SET last_used_ms = $1 WHERE token_id = $2 AND (last_used_ms IS NULL OR last_used_ms <= $3)", [atMs, tokenId, atMs - 60_000]);
}

/** Every token, each with whether its row passes its MAC (one that fails is listed, and grants nothing). */
export async function listApiTokens(tx: PgTx): Promise<ApiTokenRecord[]> {
  return (await tx.rows<ApiTokenRow>("SELECT * FROM api_tokens ORDER BY created_ms, token_id")).map((row) =>
    toApiToken(row, authenticRow(tx, API_TOKENS_TABLE, row) !== undefined),
  );
}

/** The token with this hash when its row passes its MAC (its revocation included); undefined otherwise. */
export async function selectApiTokenByHash(tx: PgTx, tokenHash: string): Promise<ApiTokenRecord | undefined> {
  const row = authenticRow(tx, API_TOKENS_TABLE, await tx.one<ApiTokenRow>("SELECT * FROM api_tokens WHERE token_hash = $1", [tokenHash]));
  return row === undefined ? undefined : toApiToken(row, true);
}

/**
 * Revokes the live token with this id (or, failing that, this name); journals it. Revoking only takes
 * authority away, so a row that failed its MAC is revoked (and MAC'd as revoked) too.
 */
export async function revokeApiToken(tx: PgTx, idOrName: string): Promise<ApiTokenRecord | undefined> {
  const row = await tx.one<ApiTokenRow>(
    "SELECT * FROM api_tokens WHERE (token_id = $1 OR name = $1) AND revoked_ms IS NULL ORDER BY (token_id = $1) DESC, created_ms LIMIT 1",
    [idOrName],
  );
  if (row === undefined) return undefined;
  const token = toApiToken(row, true);
  await tx.run("UPDATE api_tokens SET revoked_ms = $1 WHERE token_id = $2", [tx.now, token.tokenId]);
  await sealRow(tx, API_TOKENS_TABLE, [token.tokenId]);
  await journalAuthChange(tx, "api_token_revoked", { tokenId: token.tokenId, name: token.name });
  return { ...token, revokedMs: tx.now };
}

// ---- audit -------------------------------------------------------------------------------------

/** Journals what an authenticated caller did (operation-less: an operation's latest event must stay the one that states its phase). */
export async function recordRequest(tx: PgTx, record: RequestRecord): Promise<void> {
  await appendJournalEvent(tx, { type: "request_recorded", operationId: null, body: { ...record } }, tx.now);
}
