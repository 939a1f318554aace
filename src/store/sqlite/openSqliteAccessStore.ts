import { openDatabaseFile } from "./openDatabaseFile.js";
import type { JournalSealer } from "../../journal/createJournalSealer.js";
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
import { SqliteTransactions } from "./sqliteTransactions.js";
import { migrate } from "./migrate.js";
import { MIGRATIONS } from "./migrations.js";
import { insertApiToken, listApiTokens, recordApiTokenUse, revokeApiToken, selectApiTokenByHash } from "./queries/access/apiTokenSql.js";
import { clearOwnerLockouts, selectOwnerLockout, updateOwnerLockout } from "./queries/access/ownerLockoutSql.js";
import { registerClient, selectClient } from "./queries/access/oauthClientSql.js";
import { insertCode, redeemCode, selectCode } from "./queries/access/oauthCodeSql.js";
import { purgeExpired, revokeAllFamilies, revokeByToken, rotateRefresh, selectToken } from "./queries/access/oauthTokenSql.js";
import { selectOwnerSecret, upsertOwnerSecret } from "./queries/access/ownerSecretSql.js";
import { recordRequest } from "./queries/access/recordRequest.js";
import { createSqliteContext } from "./sqliteContext.js";
import { selectHead } from "./journalHeadSql.js";

export interface SqliteAccessStoreOptions {
  /** The same database file as the operations store (ERRAND_HOME/errand.db). */
  path: string;
  sealer: JournalSealer;
  busyTimeoutMs: number;
  /** Pre-migration copies a migration leaves beside the file, its own included (ERRAND_KEEP_MIGRATION_BACKUPS). Default 3. */
  keepMigrationBackups?: number;
  busyPatienceMs?: number;
  clock?: () => number;
}

/**
 * Opens the access tables on their own connection to errand's database. The operations store must
 * have been opened first (it creates the journal head); migrations are shared, so whichever
 * connection comes first applies them, once.
 */
export function openSqliteAccessStore(options: SqliteAccessStoreOptions): AccessStore {
  const db = openDatabaseFile(options.path, options.busyTimeoutMs);
  try {
    migrate(db, MIGRATIONS, options.path, options.sealer, options.keepMigrationBackups);
    const ctx = createSqliteContext(db, options.sealer, options.clock ?? Date.now);
    if (selectHead(ctx) === undefined) throw new Error("the journal is not initialized: open the operations store first");
    return new SqliteAccessStore(ctx, options.busyPatienceMs ?? 30_000);
  } catch (error) {
    db.close();
    throw error;
  }
}

class SqliteAccessStore extends SqliteTransactions implements AccessStore {
  readOwnerSecret(): Promise<string | undefined> {
    return this.read(() => selectOwnerSecret(this.ctx));
  }
  writeOwnerSecret(encoded: string): Promise<void> {
    return this.write(() => upsertOwnerSecret(this.ctx, encoded));
  }

  readOwnerLockout(address: string): Promise<LockoutRecord> {
    return this.read(() => selectOwnerLockout(this.ctx, address));
  }
  updateOwnerLockout<T>(address: string, transition: (record: LockoutRecord, nowMs: number) => LockoutTransition<T>): Promise<T> {
    return this.write(() => updateOwnerLockout(this.ctx, address, transition));
  }
  clearOwnerLockouts(address?: string): Promise<number> {
    return this.write(() => clearOwnerLockouts(this.ctx, address));
  }

  registerClient(client: NewOAuthClient, maxClients: number): Promise<RegisterClientResult> {
    return this.write(() => registerClient(this.ctx, client, maxClients));
  }
  readClient(clientId: string): Promise<OAuthClientRecord | undefined> {
    return this.read(() => selectClient(this.ctx, clientId));
  }

  saveAuthorizationCode(code: AuthorizationCodeRecord): Promise<void> {
    return this.write(() => insertCode(this.ctx, code));
  }
  readAuthorizationCode(codeHash: string): Promise<AuthorizationCodeRecord | undefined> {
    return this.read(() => selectCode(this.ctx, codeHash));
  }
  redeemAuthorizationCode(codeHash: string, tokens: NewTokenFamily): Promise<RedeemResult> {
    return this.write(() => redeemCode(this.ctx, codeHash, tokens));
  }

  readToken(tokenHash: string): Promise<OAuthTokenRecord | undefined> {
    return this.read(() => selectToken(this.ctx, tokenHash));
  }
  rotateRefreshToken(refreshHash: string, next: NewTokenPair, graceMs: number): Promise<RotateResult> {
    return this.write(() => rotateRefresh(this.ctx, refreshHash, next, graceMs));
  }
  revokeTokenFamily(tokenHash: string, clientId: string, reason: string): Promise<boolean> {
    return this.write(() => revokeByToken(this.ctx, tokenHash, clientId, reason));
  }
  revokeAllTokenFamilies(reason: string): Promise<number> {
    return this.write(() => revokeAllFamilies(this.ctx, reason));
  }
  purgeExpired(beforeMs: number): Promise<number> {
    return this.write(() => purgeExpired(this.ctx, beforeMs));
  }

  createApiToken(token: NewApiToken): Promise<void> {
    return this.write(() => insertApiToken(this.ctx, token));
  }
  listApiTokens(): Promise<ApiTokenRecord[]> {
    return this.read(() => listApiTokens(this.ctx));
  }
  readApiToken(tokenHash: string): Promise<ApiTokenRecord | undefined> {
    return this.read(() => selectApiTokenByHash(this.ctx, tokenHash));
  }
  revokeApiToken(idOrName: string): Promise<ApiTokenRecord | undefined> {
    return this.write(() => revokeApiToken(this.ctx, idOrName));
  }
  recordApiTokenUse(tokenId: string, atMs: number): Promise<void> {
    return this.write(() => recordApiTokenUse(this.ctx, tokenId, atMs));
  }

  takeRowRefusals(): UnauthenticRow[] {
    const refused = [...this.ctx.rowRefusals.values()];
    this.ctx.rowRefusals.clear();
    return refused;
  }
  recordRequest(record: RequestRecord): Promise<void> {
    return this.write(() => recordRequest(this.ctx, record));
  }
}
