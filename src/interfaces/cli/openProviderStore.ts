import type { RuntimeConfig } from "../../config/runtimeConfig.js";
import { createJournalSealer } from "../../journal/createJournalSealer.js";
import { deriveSubkey } from "../../keys/loadKey.js";
import type { ProviderStore } from "../../store/ProviderStore.js";
import { openSqliteProviderStore } from "../../store/sqlite/openSqliteProviderStore.js";
import { sqliteStorePath } from "../../store/sqlite/openSqliteStore.js";
import type { HomeAccess } from "./masterKey.js";
import { masterKeyFor } from "./masterKey.js";

/** Opens the router's provider tables in ERRAND_HOME/errand.db, journaling under the master key's "journal" subkey (see masterKeyFor for `access`). */
export function openProviderStore(config: RuntimeConfig, access: HomeAccess = "write"): ProviderStore {
  const key = masterKeyFor(config.errandHome, access);
  return openSqliteProviderStore({ path: sqliteStorePath(config.errandHome), sealer: createJournalSealer(deriveSubkey(key, "journal")), busyTimeoutMs: config.busyTimeoutMs });
}
