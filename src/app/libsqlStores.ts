import type { JournalSealer } from "../journal/createJournalSealer.js";
import type { AccessStore } from "../store/AccessStore.js";
import type { ArtifactStore } from "../store/ArtifactStore.js";
import type { FileStore } from "../store/FileStore.js";
import type { LibsqlClientLike } from "../store/libsql/LibsqlClientLike.js";
import { openLibsqlAccessStore } from "../store/libsql/openLibsqlAccessStore.js";
import { openLibsqlArtifactStore } from "../store/libsql/openLibsqlArtifactStore.js";
import { openLibsqlFileStore } from "../store/libsql/openLibsqlFileStore.js";
import { openLibsqlProviderStore } from "../store/libsql/openLibsqlProviderStore.js";
import { openLibsqlSecretStore } from "../store/libsql/openLibsqlSecretStore.js";
import { openLibsqlSiteStore } from "../store/libsql/openLibsqlSiteStore.js";
import { openLibsqlStore } from "../store/libsql/openLibsqlStore.js";
import type { ProviderStore } from "../store/ProviderStore.js";
import type { SecretStore } from "../store/SecretStore.js";
import type { SiteStore } from "../store/SiteStore.js";
import type { Store } from "../store/Store.js";

export interface LibsqlStoreSet {
  operations: Store;
  artifacts: ArtifactStore;
  provider: ProviderStore;
  access: AccessStore;
  secrets: SecretStore;
  sites: SiteStore;
  files: FileStore;
}

/**
 * Every libSQL store over one client, opened one after another: the operations store first (it
 * creates or checks the schema and the journal head), then the rest on what it found, without a
 * round trip of their own. A failure closes nothing: the client is its caller's.
 */
export async function openLibsqlStores(options: {
  client: LibsqlClientLike;
  where: string;
  sealer: JournalSealer;
  clock?: () => number;
}): Promise<LibsqlStoreSet> {
  const operations = await openLibsqlStore(options);
  // The operations store has just made or checked the schema and the journal head on this client: the rest skip both.
  const prepared = { ...options, prepared: true };
  return {
    operations,
    artifacts: await openLibsqlArtifactStore(prepared),
    provider: await openLibsqlProviderStore(prepared),
    access: await openLibsqlAccessStore(prepared),
    secrets: await openLibsqlSecretStore(prepared),
    sites: await openLibsqlSiteStore(prepared),
    files: await openLibsqlFileStore(prepared),
  };
}
