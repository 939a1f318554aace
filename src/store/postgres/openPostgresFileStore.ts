import type { FileStore, NewOwnerFile, OwnerFileInfo, StoredOwnerFile } from "../FileStore.js";
import type { PostgresStoreOptions } from "./openPostgresStore.js";
import { openPostgresParts } from "./openPostgresStore.js";
import { PgTransactions } from "./pgTransactions.js";
import { listOwnerFiles, putOwnerFile, readOwnerFile, removeOwnerFile } from "./queries/ownerFiles.js";

/** The owner's upload files on PostgreSQL: sealed bytes with their plain size and hash, for every runner on the database. */
export function openPostgresFileStore(options: PostgresStoreOptions): FileStore {
  const { pool, ctx, ready } = openPostgresParts(options);
  return new PostgresFileStore(pool, ctx, ready, options.connectionString, options.busyPatienceMs ?? 30_000);
}

class PostgresFileStore extends PgTransactions implements FileStore {
  putFile(file: NewOwnerFile): Promise<{ created: boolean }> {
    return this.write((tx) => putOwnerFile(tx, file));
  }
  readFile(name: string): Promise<StoredOwnerFile | null> {
    return this.read((tx) => readOwnerFile(tx, name));
  }
  listFiles(): Promise<OwnerFileInfo[]> {
    return this.read((tx) => listOwnerFiles(tx));
  }
  removeFile(name: string): Promise<boolean> {
    return this.write((tx) => removeOwnerFile(tx, name));
  }
}
