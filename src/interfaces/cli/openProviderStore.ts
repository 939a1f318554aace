import type { RuntimeConfig } from "../../config/runtimeConfig.js";
import { createJournalSealer } from "../../journal/createJournalSealer.js";
import { deriveSubkey, loadOrCreateMasterKey } from "../../keys/loadKey.js";
import type { ProviderStore } from "../../store/ProviderStore.js";
import { openSqliteProviderStore } from "../../store/sqlite/openSqliteProviderStore.js";
import { sqliteStorePath } from "../../store/sqlite/openSqliteStore.js";

/** Opens the router's provider tables in ERRAND_HOME/errand.db, journaling under the master key's "journal" subkey. */
export function openProviderStore(config: RuntimeConfig): ProviderStore {
  const key = loadOrCreateMasterKey(config.errandHome);
  return openSqliteProviderStore({ path: sqliteStorePath(config.errandHome), sealer: createJournalSealer(deriveSubkey(key, "journal")), busyTimeoutMs: config.busyTimeoutMs });
}
