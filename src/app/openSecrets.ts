import type { RuntimeConfig } from "../config/runtimeConfig.js";
import { createJournalSealer } from "../journal/createJournalSealer.js";
import { deriveSubkey } from "../keys/loadKey.js";
import { createSealedBox } from "../keys/sealedBox.js";
import { createSecretRegistry } from "../secrets/createSecretRegistry.js";
import type { SecretRegistry } from "../secrets/createSecretRegistry.js";
import { openSecretStoreAt, storeLocationFor } from "./openStores.js";
import type { StoreLocation } from "./openStores.js";
import type { HomeAccess } from "./masterKey.js";
import { masterKeyFor } from "./masterKey.js";

export interface OpenedSecrets {
  registry: SecretRegistry;
  close(): Promise<void>;
}

/**
 * Opens the owner's secret registry in ERRAND_HOME/errand.db: values sealed under the master key's
 * "secrets" subkey, changes journaled under its "journal" subkey. --from-env sources are read from
 * `env` (this process's environment) when a task types them, and only by the name the owner declared.
 * See masterKeyFor for `access`.
 */
export function openSecrets(config: RuntimeConfig, env: NodeJS.ProcessEnv, access: HomeAccess = "write"): OpenedSecrets {
  const location = storeLocationFor(config);
  return openSecretsAt(location, masterKeyFor(config.errandHome, access, location), env, config.errandHome);
}

/** The same registry in a store already located, under a key already read (the composition root holds both). */
export function openSecretsAt(location: StoreLocation, key: Buffer, env: NodeJS.ProcessEnv, errandHome: string): OpenedSecrets {
  const store = openSecretStoreAt(location, { sealer: createJournalSealer(deriveSubkey(key, "journal")) });
  const registry = createSecretRegistry({ store, box: createSealedBox(deriveSubkey(key, "secrets")), env, errandHome });
  return { registry, close: () => store.close() };
}
