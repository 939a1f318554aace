import type { JournalSealer } from "../../journal/createJournalSealer.js";
import type { ArtifactBatch, ArtifactStore, StoredArtifact } from "../ArtifactStore.js";
import { createLibsqlSchema } from "./createLibsqlSchema.js";
import type { LibsqlContext } from "./libsqlContext.js";
import { createLibsqlContext } from "./libsqlContext.js";
import type { LibsqlClientLike } from "./LibsqlClientLike.js";
import { dropExpiredArtifacts, putArtifacts, readArtifact } from "./queries/artifacts.js";

export interface LibsqlArtifactStoreOptions {
  /** A client to errand's database; the artifact store owns it from here on and closes it (when it can be closed). */
  client: LibsqlClientLike;
  /** How the database is named in errors. */
  where: string;
  sealer: JournalSealer;
  clock?: () => number;
  /** The schema and journal head are known to be in place (openLibsqlStores opened the operations store on this client just before), so they are not checked again. */
  prepared?: boolean;
}

/** Opens an operation's sealed evidence files (bounded per operation, replaced per attempt) on a libSQL client. */
export async function openLibsqlArtifactStore(options: LibsqlArtifactStoreOptions): Promise<ArtifactStore> {
  try {
    const clock = options.clock ?? Date.now;
    if (options.prepared !== true) await createLibsqlSchema(options.client, options.where, clock());
    return new LibsqlArtifactStore(createLibsqlContext(options.client, options.sealer, clock, 30_000));
  } catch (error) {
    options.client.close?.();
    throw error;
  }
}

class LibsqlArtifactStore implements ArtifactStore {
  constructor(private readonly ctx: LibsqlContext) {}

  now(): Promise<number> {
    return Promise.resolve(this.ctx.clock());
  }
  putArtifacts(batch: ArtifactBatch): Promise<void> {
    return putArtifacts(this.ctx, batch);
  }
  readArtifact(operationId: string, index: number): Promise<StoredArtifact | undefined> {
    return readArtifact(this.ctx, operationId, index);
  }
  dropExpiredArtifacts(): Promise<number> {
    return dropExpiredArtifacts(this.ctx);
  }
  close(): Promise<void> {
    this.ctx.client.close?.();
    return Promise.resolve();
  }
}
