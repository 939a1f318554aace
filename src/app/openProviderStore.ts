import type { RuntimeConfig } from "../config/runtimeConfig.js";
import { createJournalSealer } from "../journal/createJournalSealer.js";
import { deriveSubkey } from "../keys/loadKey.js";
import type { ProviderStore } from "../store/ProviderStore.js";
import { openProviderStoreAt } from "./openStores.js";
import { storeLocationFor } from "./storeLocation.js";
import type { StoreLocation } from "./storeLocation.js";
import type { HomeAccess } from "./masterKey.js";
import { homeForAccess, masterKeyFor } from "./masterKey.js";

/** Opens the router's provider tables (ERRAND_HOME/errand.db or ERRAND_DATABASE_URL), journaling under the master key's "journal" subkey (see masterKeyFor for `access`). */
export function openProviderStore(config: RuntimeConfig, access: Exclude<HomeAccess, "report"> = "write"): ProviderStore {
  const location = storeLocationFor(config);
  return providerStoreOn(location, masterKeyFor(config.errandHome, access, location));
}

/** Runs body on the provider tables and closes them; for "report", an unused home reads as empty (homeForAccess). */
export async function withProviderStore<T>(config: RuntimeConfig, access: HomeAccess, body: (store: ProviderStore) => Promise<T>): Promise<T> {
  const home = homeForAccess(config.errandHome, access, storeLocationFor(config));
  try {
    const store = providerStoreOn(home.location, home.key);
    try {
      return await body(store);
    } finally {
      await store.close();
    }
  } finally {
    home.dispose();
  }
}

/** The provider tables at a location, their journal events signed with the key's "journal" subkey. */
function providerStoreOn(location: StoreLocation, key: Buffer): ProviderStore {
  return openProviderStoreAt(location, { sealer: createJournalSealer(deriveSubkey(key, "journal")) });
}
