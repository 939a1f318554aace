import type { JournalSealer } from "../../journal/createJournalSealer.js";
import type { FileStore, NewOwnerFile, OwnerFileInfo, StoredOwnerFile } from "../FileStore.js";
import { createLibsqlSchema } from "./createLibsqlSchema.js";
import type { LibsqlContext } from "./libsqlContext.js";
import { createLibsqlContext } from "./libsqlContext.js";
import type { LibsqlClientLike } from "./LibsqlClientLike.js";
import { listFiles, putFile, readFile, removeFile } from "./queries/ownerFiles.js";

export interface LibsqlFileStoreOptions {
  /** A client to errand's database; the file store owns it from here on and closes it (when it can be closed). */
  client: LibsqlClientLike;
  /** How the database is named in errors. */
  where: string;
  sealer: JournalSealer;
  clock?: () => number;
  /** The schema and journal head are known to be in place (openLibsqlStores opened the operations store on this client just before), so they are not checked again. */
  prepared?: boolean;
}

/** Opens the files the owner put in errand for upload steps (sealed by the caller) on a libSQL client. */
export async function openLibsqlFileStore(options: LibsqlFileStoreOptions): Promise<FileStore> {
  try {
    const clock = options.clock ?? Date.now;
    if (options.prepared !== true) await createLibsqlSchema(options.client, options.where, clock());
    return new LibsqlFileStore(createLibsqlContext(options.client, options.sealer, clock, 30_000));
  } catch (error) {
    options.client.close?.();
    throw error;
  }
}

class LibsqlFileStore implements FileStore {
  constructor(private readonly ctx: LibsqlContext) {}

  putFile(file: NewOwnerFile): Promise<{ created: boolean }> {
    return putFile(this.ctx, file);
  }
  readFile(name: string): Promise<StoredOwnerFile | null> {
    return readFile(this.ctx, name);
  }
  listFiles(): Promise<OwnerFileInfo[]> {
    return listFiles(this.ctx);
  }
  removeFile(name: string): Promise<boolean> {
    return removeFile(this.ctx, name);
  }
  close(): Promise<void> {
    this.ctx.client.close?.();
    return Promise.resolve();
  }
}
