import type { RuntimeConfig } from "../../config/runtimeConfig.js";
import { createJournalSealer } from "../../journal/createJournalSealer.js";
import { deriveSubkey } from "../../keys/loadKey.js";
import type { ProviderStore } from "../../store/ProviderStore.js";
import { openProviderStoreAt, storeLocationFor } from "../../app/openStores.js";
import type { HomeAccess } from "./masterKey.js";
import { masterKeyFor } from "./masterKey.js";

/** Opens the router's provider tables (ERRAND_HOME/errand.db or ERRAND_DATABASE_URL), journaling under the master key's "journal" subkey (see masterKeyFor for `access`). */
export function openProviderStore(config: RuntimeConfig, access: HomeAccess = "write"): ProviderStore {
  const location = storeLocationFor(config);
  const key = masterKeyFor(config.errandHome, access, location);
  return openProviderStoreAt(location, { sealer: createJournalSealer(deriveSubkey(key, "journal")) });
}
