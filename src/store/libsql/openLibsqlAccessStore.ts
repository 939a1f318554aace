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
import { createLibsqlSchema } from "./createLibsqlSchema.js";
import { selectHead } from "./journalHead.js";
import type { LibsqlContext } from "./libsqlContext.js";
import { createLibsqlContext } from "./libsqlContext.js";
import type { LibsqlClientLike } from "./LibsqlClientLike.js";
import { createApiToken, listApiTokens, readApiToken, recordApiTokenUse, revokeApiToken } from "./queries/access/apiTokens.js";
import { readClient, registerClient } from "./queries/access/oauthClients.js";
import { readAuthorizationCode, redeemAuthorizationCode, saveAuthorizationCode } from "./queries/access/oauthCodes.js";
import { purgeExpired, readToken, revokeAllTokenFamilies, revokeTokenFamily, rotateRefreshToken } from "./queries/access/oauthTokens.js";
import { clearOwnerLockouts, readOwnerLockout, updateOwnerLockout } from "./queries/access/ownerLockouts.js";
import { readOwnerSecret, writeOwnerSecret } from "./queries/access/ownerSecret.js";
import { recordRequest } from "./queries/access/recordRequest.js";

export interface LibsqlAccessStoreOptions {
  /** A client to the operations store's database; the access store owns it from here on and closes it (when it can be closed). */
  client: LibsqlClientLike;
  /** How the database is named in errors. */
  where: string;
  sealer: JournalSealer;
  clock?: () => number;
  /** How long a write keeps retrying while the database is locked or contended before it reports store_busy (ms). Default 30 s. */
  busyPatienceMs?: number;
  /** The schema and journal head are known to be in place (openLibsqlStores opened the operations store on this client just before), so they are not checked again. */
  prepared?: boolean;
}

/**
 * Opens the owner password, lockouts, OAuth clients, codes, tokens and API tokens on a libSQL client.
 * The operations store must have been opened on the database first (it creates the journal head).
 * Every row that grants authority is written with its MAC by the statement that writes it
 * (authenticRowWrite.ts), every change is journaled in the same batch, and every read-then-write is
 * guarded on the rows it read (a spent code or refresh token cannot be spent twice).
 */
export async function openLibsqlAccessStore(options: LibsqlAccessStoreOptions): Promise<AccessStore> {
  try {
    const clock = options.clock ?? Date.now;
    if (options.prepared !== true) await createLibsqlSchema(options.client, options.where, clock());
    const ctx = createLibsqlContext(options.client, options.sealer, clock, options.busyPatienceMs ?? 30_000);
    if (options.prepared !== true && (await selectHead(ctx)) === undefined)
      throw new Error(`the journal of ${options.where} is not initialized: open the operations store first`);
    return new LibsqlAccessStore(ctx);
  } catch (error) {
    options.client.close?.();
    throw error;
  }
}

class LibsqlAccessStore implements AccessStore {
  constructor(private readonly ctx: LibsqlContext) {}

  close(): Promise<void> {
    this.ctx.client.close?.();
    return Promise.resolve();
  }
  now(): Promise<number> {
    return Promise.resolve(this.ctx.clock());
  }

  readOwnerSecret(): Promise<string | undefined> {
    return readOwnerSecret(this.ctx);
  }
  writeOwnerSecret(encoded: string): Promise<void> {
    return writeOwnerSecret(this.ctx, encoded);
  }

  readOwnerLockout(address: string): Promise<LockoutRecord> {
    return readOwnerLockout(this.ctx, address);
  }
  updateOwnerLockout<T>(address: string, transition: (record: LockoutRecord, nowMs: number) => LockoutTransition<T>): Promise<T> {
    return updateOwnerLockout(this.ctx, address, transition);
  }
  clearOwnerLockouts(address?: string): Promise<number> {
    return clearOwnerLockouts(this.ctx, address);
  }

  registerClient(client: NewOAuthClient, maxClients: number): Promise<RegisterClientResult> {
    return registerClient(this.ctx, client, maxClients);
  }
  readClient(clientId: string): Promise<OAuthClientRecord | undefined> {
    return readClient(this.ctx, clientId);
  }

  saveAuthorizationCode(code: AuthorizationCodeRecord): Promise<void> {
    return saveAuthorizationCode(this.ctx, code);
  }
  readAuthorizationCode(codeHash: string): Promise<AuthorizationCodeRecord | undefined> {
    return readAuthorizationCode(this.ctx, codeHash);
  }
  redeemAuthorizationCode(codeHash: string, tokens: NewTokenFamily): Promise<RedeemResult> {
    return redeemAuthorizationCode(this.ctx, codeHash, tokens);
  }

  readToken(tokenHash: string): Promise<OAuthTokenRecord | undefined> {
    return readToken(this.ctx, tokenHash);
  }
  rotateRefreshToken(refreshHash: string, next: NewTokenPair, graceMs: number): Promise<RotateResult> {
    return rotateRefreshToken(this.ctx, refreshHash, next, graceMs);
  }
  revokeTokenFamily(tokenHash: string, clientId: string, reason: string): Promise<boolean> {
    return revokeTokenFamily(this.ctx, tokenHash, clientId, reason);
  }
  revokeAllTokenFamilies(reason: string): Promise<number> {
    return revokeAllTokenFamilies(this.ctx, reason);
  }
  purgeExpired(beforeMs: number): Promise<number> {
    return purgeExpired(this.ctx, beforeMs);
  }

  createApiToken(token: NewApiToken): Promise<void> {
    return createApiToken(this.ctx, token);
  }
  listApiTokens(): Promise<ApiTokenRecord[]> {
    return listApiTokens(this.ctx);
  }
  readApiToken(tokenHash: string): Promise<ApiTokenRecord | undefined> {
    return readApiToken(this.ctx, tokenHash);
  }
  revokeApiToken(idOrName: string): Promise<ApiTokenRecord | undefined> {
    return revokeApiToken(this.ctx, idOrName);
  }
  recordApiTokenUse(tokenId: string, atMs: number): Promise<void> {
    return recordApiTokenUse(this.ctx, tokenId, atMs);
  }

  takeRowRefusals(): UnauthenticRow[] {
    const refused = [...this.ctx.rowRefusals.values()];
    this.ctx.rowRefusals.clear();
    return refused;
  }
  recordRequest(record: RequestRecord): Promise<void> {
    return recordRequest(this.ctx, record);
  }
}
