import type { RuntimeConfig } from "../config/runtimeConfig.js";
import { createJournalSealer } from "../journal/createJournalSealer.js";
import { deriveSubkey } from "../keys/loadKey.js";
import { openSecretStoreAt } from "./openStores.js";
import { storeLocationFor } from "./storeLocation.js";
import type { HomeAccess } from "./masterKey.js";
import { masterKeyFor } from "./masterKey.js";
import { secretsOn } from "./ownerRegistries.js";
import type { OpenedSecrets } from "./ownerRegistries.js";

/**
 * Opens the owner's secret registry in ERRAND_HOME/errand.db: values sealed under the master key's
 * "secrets" subkey, changes journaled under its "journal" subkey. --from-env sources are read from
 * `env` (this process's environment) when a task types them, and only by the name the owner declared.
 * See masterKeyFor for `access`.
 */
export function openSecrets(config: RuntimeConfig, env: NodeJS.ProcessEnv, access: HomeAccess = "write"): OpenedSecrets {
  const location = storeLocationFor(config);
  const key = masterKeyFor(config.errandHome, access, location);
  return secretsOn(openSecretStoreAt(location, { sealer: createJournalSealer(deriveSubkey(key, "journal")) }), key, env, config.errandHome);
}
