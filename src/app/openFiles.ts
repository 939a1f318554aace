import type { RuntimeConfig } from "../config/runtimeConfig.js";
import { createJournalSealer } from "../journal/createJournalSealer.js";
import { deriveSubkey } from "../keys/loadKey.js";
import { createSealedBox } from "../keys/sealedBox.js";
import { createOwnerFiles } from "../files/createOwnerFiles.js";
import type { OwnerFileRegistry } from "../files/createOwnerFiles.js";
import { openFileStoreAt, storeLocationFor } from "./openStores.js";
import type { StoreLocation } from "./openStores.js";
import type { HomeAccess } from "./masterKey.js";
import { masterKeyFor } from "./masterKey.js";

export interface OpenedFiles {
  registry: OwnerFileRegistry;
  close(): Promise<void>;
}

/**
 * Opens the owner's upload files in errand's store (ERRAND_HOME/errand.db or ERRAND_DATABASE_URL),
 * sealed under the master key's "owner-files" subkey. See masterKeyFor for `access`.
 */
export function openFiles(config: RuntimeConfig, access: HomeAccess = "write"): OpenedFiles {
  const location = storeLocationFor(config);
  return openFilesAt(location, masterKeyFor(config.errandHome, access, location));
}

/** The same registry in a store already located, under a key already read (the composition root holds both). */
export function openFilesAt(location: StoreLocation, key: Buffer): OpenedFiles {
  const store = openFileStoreAt(location, { sealer: createJournalSealer(deriveSubkey(key, "journal")) });
  return { registry: createOwnerFiles(store, createSealedBox(deriveSubkey(key, "owner-files"))), close: () => store.close() };
}
