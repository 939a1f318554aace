/**
 * Where the files the owner put in errand for upload steps are kept (errand file add): one row per
 * name with the plain size and SHA-256 and the bytes sealed (AES-256-GCM under the master key's
 * "owner-files" subkey, bound to the name, size and hash; src/files seals and opens them, never
 * here). Like the owner's secrets and sites, they live in the store, so every runner on a
 * PostgreSQL database can upload them.
 */
export interface FileStore {
  /** Adds the file, or replaces the one of that name; answers whether it was new. */
  putFile(file: NewOwnerFile): Promise<{ created: boolean }>;
  readFile(name: string): Promise<StoredOwnerFile | null>;
  /** Every file without its bytes, by name. */
  listFiles(): Promise<OwnerFileInfo[]>;
  /** True when a file of that name existed and is now gone. */
  removeFile(name: string): Promise<boolean>;
  close(): Promise<void>;
}

export interface OwnerFileInfo {
  name: string;
  bytes: number;
  /** Hex SHA-256 of the plain bytes. */
  sha256: string;
  createdMs: number;
}

export interface NewOwnerFile {
  name: string;
  bytes: number;
  sha256: string;
  sealed: string;
}

export interface StoredOwnerFile extends OwnerFileInfo {
  sealed: string;
}
