import type { JournalSealer } from "../../journal/createJournalSealer.js";
import type { NewSecretRecord, SecretRecord, SecretStore } from "../SecretStore.js";
import { createLibsqlSchema } from "./createLibsqlSchema.js";
import { ensureJournalHead } from "./ensureJournalHead.js";
import type { LibsqlContext } from "./libsqlContext.js";
import { createLibsqlContext } from "./libsqlContext.js";
import type { LibsqlClientLike } from "./LibsqlClientLike.js";
import { deleteSecret, listSecrets, putSecret, readSecret } from "./queries/secrets.js";

export interface LibsqlSecretStoreOptions {
  /** A client to errand's database; the secret store owns it from here on and closes it (when it can be closed). */
  client: LibsqlClientLike;
  /** How the database is named in errors. */
  where: string;
  sealer: JournalSealer;
  clock?: () => number;
  busyPatienceMs?: number;
  /** The schema and journal head are known to be in place (openLibsqlStores opened the operations store on this client just before), so they are not checked again. */
  prepared?: boolean;
}

/**
 * Opens the owner's declared secrets on a libSQL client (creating the schema and the journal head
 * when the database is new): values stay sealed, each row carries its MAC, every change is journaled
 * (never the value) in the batch that makes it.
 */
export async function openLibsqlSecretStore(options: LibsqlSecretStoreOptions): Promise<SecretStore> {
  try {
    const clock = options.clock ?? Date.now;
    if (options.prepared !== true) await createLibsqlSchema(options.client, options.where, clock());
    const ctx = createLibsqlContext(options.client, options.sealer, clock, options.busyPatienceMs ?? 30_000);
    if (options.prepared !== true) await ensureJournalHead(ctx);
    return new LibsqlSecretStore(ctx);
  } catch (error) {
    options.client.close?.();
    throw error;
  }
}

class LibsqlSecretStore implements SecretStore {
  constructor(private readonly ctx: LibsqlContext) {}

  putSecret(record: NewSecretRecord): Promise<{ created: boolean; record: SecretRecord }> {
    return putSecret(this.ctx, record);
  }
  readSecret(name: string): Promise<SecretRecord | null> {
    return readSecret(this.ctx, name);
  }
  listSecrets(): Promise<SecretRecord[]> {
    return listSecrets(this.ctx);
  }
  deleteSecret(name: string): Promise<boolean> {
    return deleteSecret(this.ctx, name);
  }
  close(): Promise<void> {
    this.ctx.client.close?.();
    return Promise.resolve();
  }
}
