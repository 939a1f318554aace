import type { RuntimeConfig } from "../config/runtimeConfig.js";
import { createJournalSealer } from "../journal/createJournalSealer.js";
import { deriveSubkey } from "../keys/loadKey.js";
import { createSealedBox } from "../keys/sealedBox.js";
import { createSiteRegistry } from "../sites/createSiteRegistry.js";
import type { SiteRegistry } from "../sites/createSiteRegistry.js";
import { openSiteStoreAt, storeLocationFor } from "./openStores.js";
import type { StoreLocation } from "./openStores.js";
import type { HomeAccess } from "./masterKey.js";
import { masterKeyFor } from "./masterKey.js";

export interface OpenedSites {
  registry: SiteRegistry;
  close(): Promise<void>;
}

/**
 * Opens the owner's site registry in errand's database: sessions sealed under the master key's
 * "sites" subkey, definitions journaled under its "journal" subkey. The login page URLs it names
 * start with ERRAND_PUBLIC_URL (where errand serve is reached). See masterKeyFor for `access`.
 */
export function openSites(config: RuntimeConfig, env: NodeJS.ProcessEnv, access: HomeAccess = "write"): OpenedSites {
  const location = storeLocationFor(config);
  return openSitesAt(location, masterKeyFor(config.errandHome, access, location), env);
}

/** The same registry in a store already located, under a key already read (the composition root holds both). */
export function openSitesAt(location: StoreLocation, key: Buffer, env: NodeJS.ProcessEnv): OpenedSites {
  const store = openSiteStoreAt(location, { sealer: createJournalSealer(deriveSubkey(key, "journal")) });
  const publicUrl = (env["ERRAND_PUBLIC_URL"] ?? "").trim();
  const registry = createSiteRegistry({ store, box: createSealedBox(deriveSubkey(key, "sites")), publicUrl: publicUrl === "" ? null : publicUrl });
  return { registry, close: () => store.close() };
}
