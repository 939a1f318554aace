import { createJournalSealer } from "../journal/createJournalSealer.js";
import { deriveSubkey } from "../keys/loadKey.js";
import type { AccessStore } from "../store/AccessStore.js";
import { createSecretHasher } from "../interfaces/http/secretHasher.js";
import type { SecretHasher } from "../interfaces/http/secretHasher.js";
import { openAccessStoreAt } from "./openStores.js";
import type { StoreLocation } from "./openStores.js";

export interface OpenedAccess {
  access: AccessStore;
  hasher: SecretHasher;
}

/**
 * The access tables (API tokens, OAuth clients and grants, the owner password) at a location whose
 * operations store is already open (and so created and migrated): the secrets hasher uses the master
 * key's "http-secrets" subkey, the journal its "journal" subkey, as every other errand process does.
 */
export function openAccessAt(location: StoreLocation, key: Buffer, clock?: () => number): OpenedAccess {
  const access = openAccessStoreAt(location, { sealer: createJournalSealer(deriveSubkey(key, "journal")), ...(clock === undefined ? {} : { clock }) });
  return { access, hasher: createSecretHasher(deriveSubkey(key, "http-secrets")) };
}
