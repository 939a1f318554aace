import type {
  AccessStore,
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
} from "../AccessStore.js";
import type { UnauthenticRow } from "../Store.js";
import type { PostgresStoreOptions } from "./openPostgresStore.js";
import { openPostgresParts } from "./openPostgresStore.js";
import type { PgTx } from "./pgContext.js";
import { PgTransactions } from "./pgTransactions.js";
import * as sql from "./queries/access/accessSql.js";

/** Who may call errand over HTTP, on PostgreSQL: only keyed hashes of secrets, every change journaled, access writes serialized (accessSql.lockAccess). */
export function openPostgresAccessStore(options: PostgresStoreOptions): AccessStore {
  const { pool, ctx, ready } = openPostgresParts(options);
  return new PostgresAccessStore(pool, ctx, ready, options.connectionString, options.busyPatienceMs ?? 30_000);
}

class PostgresAccessStore extends PgTransactions implements AccessStore {
  /** A write transaction that holds the access lock first. */
  private change<T>(step: (tx: PgTx) => Promise<T>): Promise<T> {
    return this.write(async (tx) => {
      await sql.lockAccess(tx);
      return step(tx);
    });
  }

  readOwnerSecret(): Promise<string | undefined> {
    return this.read((tx) => sql.selectOwnerSecret(tx));
  }
  writeOwnerSecret(encoded: string): Promise<void> {
    return this.change((tx) => sql.upsertOwnerSecret(tx, encoded));
  }
  readOwnerLockout(address: string): Promise<LockoutRecord> {
    return this.read((tx) => sql.selectOwnerLockout(tx, address));
  }
  updateOwnerLockout<T>(address: string, transition: (record: LockoutRecord, nowMs: number) => LockoutTransition<T>): Promise<T> {
    return this.change((tx) => sql.updateOwnerLockout(tx, address, transition));
  }
  clearOwnerLockouts(address?: string): Promise<number> {
    return this.change((tx) => sql.clearOwnerLockouts(tx, address));
  }
  registerClient(client: NewOAuthClient, maxClients: number): Promise<RegisterClientResult> {
    return this.change((tx) => sql.registerClient(tx, client, maxClients));
  }
  readClient(clientId: string): Promise<OAuthClientRecord | undefined> {
    return this.read((tx) => sql.selectClient(tx, clientId));
  }
  saveAuthorizationCode(code: AuthorizationCodeRecord): Promise<void> {
    return this.change((tx) => sql.insertCode(tx, code));
  }
  readAuthorizationCode(codeHash: string): Promise<AuthorizationCodeRecord | undefined> {
    return this.read((tx) => sql.selectCode(tx, codeHash));
  }
  redeemAuthorizationCode(codeHash: string, tokens: NewTokenFamily): Promise<RedeemResult> {
    return this.change((tx) => sql.redeemCode(tx, codeHash, tokens));
  }
  readToken(tokenHash: string): Promise<OAuthTokenRecord | undefined> {
    return this.read((tx) => sql.selectToken(tx, tokenHash));
  }
  rotateRefreshToken(refreshHash: string, next: NewTokenPair, graceMs: number): Promise<RotateResult> {
    return this.change((tx) => sql.rotateRefresh(tx, refreshHash, next, graceMs));
  }
  revokeTokenFamily(tokenHash: string, clientId: string, reason: string): Promise<boolean> {
    return this.change((tx) => sql.revokeByToken(tx, tokenHash, clientId, reason));
  }
  revokeAllTokenFamilies(reason: string): Promise<number> {
    return this.change((tx) => sql.revokeAllFamilies(tx, reason));
  }
  purgeExpired(beforeMs: number): Promise<number> {
    return this.change((tx) => sql.purgeExpired(tx, beforeMs));
  }
  createApiToken(token: NewApiToken): Promise<void> {
    return this.change((tx) => sql.insertApiToken(tx, token));
  }
  listApiTokens(): Promise<ApiTokenRecord[]> {
    return this.read((tx) => sql.listApiTokens(tx));
  }
  readApiToken(tokenHash: string): Promise<ApiTokenRecord | undefined> {
    return this.read((tx) => sql.selectApiTokenByHash(tx, tokenHash));
  }
  revokeApiToken(idOrName: string): Promise<ApiTokenRecord | undefined> {
    return this.change((tx) => sql.revokeApiToken(tx, idOrName));
  }
  recordApiTokenUse(tokenId: string, atMs: number): Promise<void> {
    return this.change((tx) => sql.recordApiTokenUse(tx, tokenId, atMs));
  }
  takeRowRefusals(): UnauthenticRow[] {
    const refused = [...this.ctx.rowRefusals.values()];
    this.ctx.rowRefusals.clear();
    return refused;
  }
  recordRequest(record: RequestRecord): Promise<void> {
    return this.write((tx) => sql.recordRequest(tx, record));
  }
}
