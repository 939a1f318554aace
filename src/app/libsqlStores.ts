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
 * creates the schema and the journal head), then the rest, each checking the schema it finds. A
 * failure closes nothing: the client is its caller's.
 */
export async function openLibsqlStores(options: {
  client: LibsqlClientLike;
  where: string;
  sealer: JournalSealer;
  clock?: () => number;
}): Promise<LibsqlStoreSet> {
  const operations = await openLibsqlStore(options);
  return {
    operations,
    artifacts: await openLibsqlArtifactStore(options),
    provider: await openLibsqlProviderStore(options),
    access: await openLibsqlAccessStore(options),
    secrets: await openLibsqlSecretStore(options),
    sites: await openLibsqlSiteStore(options),
    files: await openLibsqlFileStore(options),
  };
}
