import type { RuntimeConfig } from "../config/runtimeConfig.js";
import { createJournalSealer } from "../journal/createJournalSealer.js";
import { deriveSubkey } from "../keys/loadKey.js";
import { openFileStoreAt } from "./openStores.js";
import { storeLocationFor } from "./storeLocation.js";
import type { HomeAccess } from "./masterKey.js";
import { masterKeyFor } from "./masterKey.js";
import { filesOn } from "./ownerRegistries.js";
import type { OpenedFiles } from "./ownerRegistries.js";

/**
 * Opens the owner's upload files in errand's store (ERRAND_HOME/errand.db or ERRAND_DATABASE_URL),
 * sealed under the master key's "owner-files" subkey. See masterKeyFor for `access`.
 */
export function openFiles(config: RuntimeConfig, access: HomeAccess = "write"): OpenedFiles {
  const location = storeLocationFor(config);
  const key = masterKeyFor(config.errandHome, access, location);
  return filesOn(openFileStoreAt(location, { sealer: createJournalSealer(deriveSubkey(key, "journal")) }), key);
}
