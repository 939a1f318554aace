import { ConfigError } from "../config/configError.js";
import type { JournalSealer } from "../journal/createJournalSealer.js";
import type { AccessStore } from "../store/AccessStore.js";
import type { ArtifactStore } from "../store/ArtifactStore.js";
import type { FileStore } from "../store/FileStore.js";
import type { KeyRotationStore } from "../store/KeyRotationStore.js";
import { openPostgresKeyRotationStore } from "../store/postgres/openPostgresKeyRotationStore.js";
import { openSqliteKeyRotationStore } from "../store/sqlite/openSqliteKeyRotationStore.js";
import { readJournalKeyId } from "../store/sqlite/readJournalKeyId.js";
import { readJournalKeyIdPg } from "../store/postgres/readJournalKeyIdPg.js";
import { openPostgresFileStore } from "../store/postgres/openPostgresFileStore.js";
import { openSqliteFileStore } from "../store/sqlite/openSqliteFileStore.js";
import type { ProviderStore } from "../store/ProviderStore.js";
import type { SecretStore } from "../store/SecretStore.js";
import type { SiteStore } from "../store/SiteStore.js";
import type { Store } from "../store/Store.js";
import { openPostgresAccessStore } from "../store/postgres/openPostgresAccessStore.js";
import { openPostgresArtifactStore } from "../store/postgres/openPostgresArtifactStore.js";
import { openPostgresProviderStore } from "../store/postgres/openPostgresProviderStore.js";
import { openPostgresSecretStore } from "../store/postgres/openPostgresSecretStore.js";
import { openPostgresSiteStore } from "../store/postgres/openPostgresSiteStore.js";
import { openPostgresStore } from "../store/postgres/openPostgresStore.js";
import { openSqliteAccessStore } from "../store/sqlite/openSqliteAccessStore.js";
import { openSqliteArtifactStore } from "../store/sqlite/openSqliteArtifactStore.js";
import { openSqliteProviderStore } from "../store/sqlite/openSqliteProviderStore.js";
import { openSqliteSecretStore } from "../store/sqlite/openSqliteSecretStore.js";
import { openSqliteSiteStore } from "../store/sqlite/openSqliteSiteStore.js";
import { openSqliteStore } from "../store/sqlite/openSqliteStore.js";
import type { StoreLocation } from "./storeLocation.js";

export interface StoreOpenOptions {
  /** Seals and checks the journal (the master key's "journal" subkey). */
  sealer: JournalSealer;
  /** Tests move time by hand; otherwise SQLite uses the process clock and PostgreSQL its now(). */
  clock?: () => number;
}

/**
 * The openers here are synchronous and load SQLite's native binding and PostgreSQL's driver. A
 * libSQL database is opened asynchronously, by createErrand (app/storePorts.ts); a command that
 * reaches these openers with one (key rotation, migrate, the provider commands) is refused here,
 * naming what works instead.
 */
function serverLocation(location: StoreLocation): Extract<StoreLocation, { backend: "postgres" }> {
  if (location.backend !== "postgres") {
    throw new ConfigError(
      `This command works on the embedded SQLite database or PostgreSQL, not on the libSQL database ERRAND_DATABASE_URL names (${location.backend === "libsql" ? location.url.split(":")[0] : location.backend}:). Tasks, operations, sites, secrets, files, tokens and serving work on libSQL; key rotation, migrate, backup and the provider commands do not yet.`,
    );
  }
  return location;
}

function postgresOptions(given: StoreLocation, options: StoreOpenOptions) {
  const location = serverLocation(given);
  return {
    connectionString: location.url,
    sealer: options.sealer,
    ...(location.schema === undefined ? {} : { schema: location.schema }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  };
}

function sqliteOptions(location: Extract<StoreLocation, { backend: "sqlite" }>, options: StoreOpenOptions) {
  return {
    path: location.path,
    sealer: options.sealer,
    busyTimeoutMs: location.busyTimeoutMs,
    ...(location.keepMigrationBackups === undefined ? {} : { keepMigrationBackups: location.keepMigrationBackups }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  };
}

/** Operations, leases, breakers, held results and the journal. */
export function openOperationStore(location: StoreLocation, options: StoreOpenOptions): Store {
  return location.backend === "sqlite" ? openSqliteStore(sqliteOptions(location, options)) : openPostgresStore(postgresOptions(location, options));
}

/** The router's provider states, slots, usage and breakers. */
export function openProviderStoreAt(location: StoreLocation, options: StoreOpenOptions): ProviderStore {
  return location.backend === "sqlite"
    ? openSqliteProviderStore(sqliteOptions(location, options))
    : openPostgresProviderStore(postgresOptions(location, options));
}

/** The owner password, OAuth clients, codes, tokens, API tokens and lockouts. */
export function openAccessStoreAt(location: StoreLocation, options: StoreOpenOptions): AccessStore {
  return location.backend === "sqlite" ? openSqliteAccessStore(sqliteOptions(location, options)) : openPostgresAccessStore(postgresOptions(location, options));
}

/** The owner's declared secrets (sealed). */
export function openSecretStoreAt(location: StoreLocation, options: StoreOpenOptions): SecretStore {
  return location.backend === "sqlite" ? openSqliteSecretStore(sqliteOptions(location, options)) : openPostgresSecretStore(postgresOptions(location, options));
}

/** The owner's sites and their sealed sessions. */
export function openSiteStoreAt(location: StoreLocation, options: StoreOpenOptions): SiteStore {
  return location.backend === "sqlite" ? openSqliteSiteStore(sqliteOptions(location, options)) : openPostgresSiteStore(postgresOptions(location, options));
}

/** The files the owner put in errand for upload steps (sealed). */
export function openFileStoreAt(location: StoreLocation, options: StoreOpenOptions): FileStore {
  return location.backend === "sqlite" ? openSqliteFileStore(sqliteOptions(location, options)) : openPostgresFileStore(postgresOptions(location, options));
}

/**
 * Artifacts (evidence screenshots), sealed. Both stores have one; the answer stays optional for
 * callers that embed errand without artifacts (their receipts then say in artifactsOmitted that the
 * bytes were not kept, and reads answer artifact_not_found).
 */
export function openArtifactStoreAt(location: StoreLocation, options: StoreOpenOptions): ArtifactStore | undefined {
  return location.backend === "sqlite"
    ? openSqliteArtifactStore(sqliteOptions(location, options))
    : openPostgresArtifactStore(postgresOptions(location, options));
}

/**
 * The master-key rotation (errand key rotate): everything sealed or MAC'd under the key moves to the
 * next one in one transaction. On SQLite, `reclaimFreedPages` then rewrites the file and empties the
 * WAL (pages that held values sealed under the old key); PostgreSQL leaves that to its vacuum.
 */
export function openKeyRotationStoreAt(location: StoreLocation, options: StoreOpenOptions): KeyRotationStore & { reclaimFreedPages?(): Promise<void> } {
  return location.backend === "sqlite"
    ? openSqliteKeyRotationStore(sqliteOptions(location, options))
    : openPostgresKeyRotationStore(postgresOptions(location, options));
}

/** The key id the stored journal's head names, read without creating or migrating anything; undefined when there is no journal yet. */
export function readJournalKeyIdAt(location: StoreLocation): Promise<string | undefined> {
  if (location.backend === "sqlite") return Promise.resolve(readJournalKeyId(location.path));
  const postgres = serverLocation(location);
  return readJournalKeyIdPg(postgres.url, postgres.schema);
}
