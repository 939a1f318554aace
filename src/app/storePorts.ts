import type { AccessStore } from "../store/AccessStore.js";
import type { ArtifactStore } from "../store/ArtifactStore.js";
import type { FileStore } from "../store/FileStore.js";
import type { LibsqlClientLike } from "../store/libsql/LibsqlClientLike.js";
import type { ProviderStore } from "../store/ProviderStore.js";
import type { SecretStore } from "../store/SecretStore.js";
import type { SiteStore } from "../store/SiteStore.js";
import type { Store } from "../store/Store.js";
import type { StoreOpenOptions } from "./openStores.js";
import type { StoreLocation } from "./storeLocation.js";
import { describeStoreLocation } from "./storeLocation.js";

/**
 * Every store errand keeps at one location, as the composition root hands them out: the operations
 * and artifact stores open at once; the others when something first asks (each ask opens one the
 * asker closes). `close` releases what they share (a libSQL client), after the stores are closed.
 */
export interface StorePorts {
  operations: Store;
  artifacts: ArtifactStore | undefined;
  provider(): ProviderStore;
  access(): AccessStore;
  secrets(): SecretStore;
  sites(): SiteStore;
  files(): FileStore;
  close(): Promise<void>;
}

/**
 * Opens the stores at a location. Each backend's code is loaded here, on demand, so a host that
 * keeps its state in libSQL (Deno, Val Town) never loads SQLite's native binding or the PostgreSQL
 * driver, and a Node process on SQLite never loads the libSQL client.
 */
export async function openStorePorts(location: StoreLocation, options: StoreOpenOptions): Promise<StorePorts> {
  if (location.backend === "libsql") return openLibsqlPorts(location, options);
  const stores = await import("./openStores.js");
  const operations = stores.openOperationStore(location, options);
  let artifacts;
  try {
    artifacts = stores.openArtifactStoreAt(location, options);
  } catch (error) {
    await operations.close();
    throw error;
  }
  // As before the ports existed: the access tables follow a test's clock; the registries' stores the process's.
  const sealed = { sealer: options.sealer };
  return {
    operations,
    artifacts,
    provider: () => stores.openProviderStoreAt(location, sealed),
    access: () => stores.openAccessStoreAt(location, options),
    secrets: () => stores.openSecretStoreAt(location, sealed),
    sites: () => stores.openSiteStoreAt(location, sealed),
    files: () => stores.openFileStoreAt(location, sealed),
    close: () => Promise.resolve(),
  };
}

/**
 * libSQL: one client for every store (a platform's, or one opened on the URL), so a host with one
 * database connection (Val Town's) uses just that. The operations store opens first: it creates the
 * schema and the journal head the others need. Each store gets the client without its close, so a
 * store closed early cannot cut the others off; the client closes last.
 */
async function openLibsqlPorts(location: Extract<StoreLocation, { backend: "libsql" }>, options: StoreOpenOptions): Promise<StorePorts> {
  const [libsql, client] = await Promise.all([import("./libsqlStores.js"), location.client ?? openClient(location)]);
  const shared: LibsqlClientLike = { execute: (statement) => client.execute(statement), batch: (statements, mode) => client.batch(statements, mode) };
  const base = {
    client: shared,
    where: describeStoreLocation(location),
    sealer: options.sealer,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  };
  try {
    const opened = await libsql.openLibsqlStores(base);
    return {
      ...opened,
      provider: () => opened.provider,
      access: () => opened.access,
      secrets: () => opened.secrets,
      sites: () => opened.sites,
      files: () => opened.files,
      close: () => Promise.resolve(client.close?.()),
    };
  } catch (error) {
    client.close?.();
    throw error;
  }
}

async function openClient(location: Extract<StoreLocation, { backend: "libsql" }>): Promise<LibsqlClientLike> {
  const { openLibsqlClient } = await import("../store/libsql/openLibsqlClient.js");
  return openLibsqlClient({ url: location.url, ...(location.authToken === undefined ? {} : { authToken: location.authToken }) });
}
