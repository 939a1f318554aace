import type { RuntimeConfig } from "../config/runtimeConfig.js";
import { createJournalSealer } from "../journal/createJournalSealer.js";
import { deriveSubkey } from "../keys/loadKey.js";
import { openSiteStoreAt } from "./openStores.js";
import { storeLocationFor } from "./storeLocation.js";
import type { HomeAccess } from "./masterKey.js";
import { masterKeyFor } from "./masterKey.js";
import { sitesOn } from "./ownerRegistries.js";
import type { OpenedSites } from "./ownerRegistries.js";

/**
 * Opens the owner's site registry in errand's database: sessions sealed under the master key's
 * "sites" subkey, definitions journaled under its "journal" subkey. The login page URLs it names
 * start with ERRAND_PUBLIC_URL (where errand serve is reached). See masterKeyFor for `access`.
 */
export function openSites(config: RuntimeConfig, env: NodeJS.ProcessEnv, access: HomeAccess = "write"): OpenedSites {
  const location = storeLocationFor(config);
  const key = masterKeyFor(config.errandHome, access, location);
  return sitesOn(openSiteStoreAt(location, { sealer: createJournalSealer(deriveSubkey(key, "journal")) }), key, env);
}
