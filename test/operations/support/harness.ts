// Builds a real store (SQLite in a temporary ERRAND_HOME, or PostgreSQL when `location` names a
// database schema) and the operations service over it, opened through app/openStores as every
// command opens it. Not a test file.
import type { LiveSiteGrant } from "../../../src/sites/siteTypes.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveRuntimeConfig } from "../../../src/config/runtimeConfig.js";
import type { RuntimeConfig } from "../../../src/config/runtimeConfig.js";
import type { ExecuteTask } from "../../../src/executor/executeTaskTypes.js";
import { createJournalSealer } from "../../../src/journal/createJournalSealer.js";
import type { JournalSealer } from "../../../src/journal/createJournalSealer.js";
import { deriveSubkey, loadOrCreateMasterKey } from "../../../src/keys/loadKey.js";
import { createOperationsService } from "../../../src/operations/createOperationsService.js";
import type { OperationsService } from "../../../src/operations/serviceTypes.js";
import type { RunnerEvent } from "../../../src/runner/runnerTypes.js";
import type { StoreLocation } from "../../../src/app/openStores.js";
import { openArtifactStoreAt, openFileStoreAt, openOperationStore, openSecretStoreAt } from "../../../src/app/openStores.js";
import { createOwnerFiles } from "../../../src/files/createOwnerFiles.js";
import type { OwnerFileRegistry } from "../../../src/files/createOwnerFiles.js";
import type { FileStore } from "../../../src/store/FileStore.js";
import { sqliteStorePath } from "../../../src/store/sqlite/openSqliteStore.js";
import type { ArtifactStore } from "../../../src/store/ArtifactStore.js";
import type { Store } from "../../../src/store/Store.js";
import type { SecretStore } from "../../../src/store/SecretStore.js";
import { createSealedBox } from "../../../src/keys/sealedBox.js";
import { createSecretRegistry } from "../../../src/secrets/createSecretRegistry.js";
import type { SecretRegistry } from "../../../src/secrets/createSecretRegistry.js";

/** A clock tests move by hand. */
export interface ManualClock {
  now: () => number;
  advance(ms: number): void;
}

export function manualClock(start = Date.UTC(2026, 0, 1)): ManualClock {
  let current = start;
  return {
    now: () => current,
    advance(ms) {
      current += ms;
    },
  };
}

export interface Harness {
  home: string;
  dbPath: string;
  /** Where the store is: the SQLite file at dbPath, or a PostgreSQL schema. */
  location: StoreLocation;
  key: Buffer;
  sealer: JournalSealer;
  config: RuntimeConfig;
  store: Store;
  /** Absent on PostgreSQL (no ArtifactStore adapter yet). */
  artifactStore: ArtifactStore | undefined;
  service: OperationsService;
  events: RunnerEvent[];
  /** The owner's secret registry in the same store (opened on first use), as errand secret set writes it; submit reads it. */
  secrets(): SecretRegistry;
  /** The owner's upload files in the same store (opened on first use), as errand file add writes them; submit reads them. */
  files(): OwnerFileRegistry;
  /** Opens another store + service on the same files (another "process"). */
  reopen(execute?: ExecuteTask): { store: Store; service: OperationsService; artifactStore: ArtifactStore | undefined };
  close(): Promise<void>;
}

/**
 * The policy an operator sets with ERRAND_OWNER_APPROVAL=consequential,secret: reversible writes
 * run without the owner. For tests about the runner, control or the journal, not about the owner's
 * approval (test/operations/approval.test.ts tests the default, which holds every write).
 */
export const REVERSIBLE_WRITES_UNATTENDED: Pick<RuntimeConfig, "ownerApproval"> = { ownerApproval: ["consequential", "secret"] };

export function makeTempHome(): string {
  return mkdtempSync(join(tmpdir(), "errand-ops-"));
}

export function openHarness(
  options: { home?: string; clock?: () => number; execute?: ExecuteTask; config?: Partial<RuntimeConfig>; runnerId?: string; location?: StoreLocation; siteGrants?: (site: string) => Promise<LiveSiteGrant[]> } = {},
): Harness {
  const home = options.home ?? makeTempHome();
  const config = resolveRuntimeConfig({ ERRAND_HOME: home }, { retryDelayMs: 0, ...options.config });
  const key = loadOrCreateMasterKey(home);
  const sealer = createJournalSealer(deriveSubkey(key, "journal"));
  const dbPath = sqliteStorePath(home);
  const location: StoreLocation = options.location ?? { backend: "sqlite", path: dbPath, busyTimeoutMs: config.busyTimeoutMs };
  const events: RunnerEvent[] = [];
  const opened: (Store | ArtifactStore | SecretStore | FileStore)[] = [];
  let registry: SecretRegistry | undefined;
  const secrets = (): SecretRegistry => {
    if (registry === undefined) {
      const store = openSecretStoreAt(location, { sealer });
      opened.push(store);
      registry = createSecretRegistry({ store, box: createSealedBox(deriveSubkey(key, "secrets")), env: {}, errandHome: home });
    }
    return registry;
  };
  let fileRegistry: OwnerFileRegistry | undefined;
  const files = (): OwnerFileRegistry => {
    if (fileRegistry === undefined) {
      const store = openFileStoreAt(location, { sealer });
      opened.push(store);
      fileRegistry = createOwnerFiles(store, createSealedBox(deriveSubkey(key, "owner-files")));
    }
    return fileRegistry;
  };
  const fileKnown = (name: string): Promise<boolean> => files().has(name);
  const secretSites = async (name: string): Promise<string[] | null> => (await secrets().lookup(name))?.sites ?? null;
  const open = (execute?: ExecuteTask) => {
    const clock = options.clock === undefined ? {} : { clock: options.clock };
    const store = openOperationStore(location, { sealer, ...clock });
    const artifactStore = openArtifactStoreAt(location, { sealer, ...clock });
    opened.push(store, ...(artifactStore === undefined ? [] : [artifactStore]));
    const service = createOperationsService({
      store,
      secretSites,
      fileKnown,
      ...(options.siteGrants === undefined ? {} : { siteGrants: options.siteGrants }),
      ...(artifactStore === undefined ? {} : { artifactStore }),
      sealer,
      digestKey: key,
      config,
      ...(execute === undefined ? {} : { execute }),
      runnerId: options.runnerId ?? "test-runner",
      onRunnerEvent: (event) => events.push(event),
    });
    return { store, service, artifactStore };
  };
  const first = open(options.execute);
  return {
    home,
    dbPath,
    location,
    key,
    sealer,
    config,
    store: first.store,
    artifactStore: first.artifactStore,
    service: first.service,
    events,
    secrets,
    files,
    reopen: open,
    async close() {
      for (const store of opened) await store.close();
      if (options.home === undefined) rmSync(home, { recursive: true, force: true });
    },
  };
}
