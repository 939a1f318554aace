// Puts errand together for a test through the composition root (src/app/createErrand.ts), as every
// command does: a real store (SQLite in a temporary ERRAND_HOME, or PostgreSQL when `location` names
// a database schema), the operations service over it, the owner's registries, a clock the test moves
// and the test's executor. Not a test file.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createErrand } from "../../../src/app/createErrand.js";
import type { Errand } from "../../../src/app/createErrand.js";
import type { RuntimeConfig } from "../../../src/config/runtimeConfig.js";
import type { ExecuteTask } from "../../../src/executor/executeTaskTypes.js";
import { createJournalSealer } from "../../../src/journal/createJournalSealer.js";
import type { JournalSealer } from "../../../src/journal/createJournalSealer.js";
import { deriveSubkey, loadOrCreateMasterKey } from "../../../src/keys/loadKey.js";
import type { OperationsService } from "../../../src/operations/serviceTypes.js";
import type { RunnerEvent } from "../../../src/runner/runnerTypes.js";
import type { StoreLocation } from "../../../src/app/storeLocation.js";
import type { OwnerFileRegistry } from "../../../src/files/createOwnerFiles.js";
import { sqliteStorePath } from "../../../src/store/sqlite/sqliteStorePath.js";
import type { ArtifactStore } from "../../../src/store/ArtifactStore.js";
import type { Store } from "../../../src/store/Store.js";
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
  /** errand as the composition root put it together for this test. */
  errand: Errand;
  store: Store;
  artifactStore: ArtifactStore | undefined;
  service: OperationsService;
  events: RunnerEvent[];
  /** The owner's secret registry in the same store (opened on first use), as errand secret set writes it; submit reads it. */
  secrets(): SecretRegistry;
  /** The owner's upload files in the same store (opened on first use), as errand file add writes them; submit reads them. */
  files(): OwnerFileRegistry;
  /** Puts errand together again on the same files (another "process"), closed with the harness. */
  reopen(execute?: ExecuteTask): Promise<{ store: Store; service: OperationsService; artifactStore: ArtifactStore | undefined }>;
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

export async function openHarness(
  options: { home?: string; clock?: () => number; execute?: ExecuteTask; config?: Partial<RuntimeConfig>; runnerId?: string; location?: StoreLocation } = {},
): Promise<Harness> {
  const home = options.home ?? makeTempHome();
  const key = loadOrCreateMasterKey(home);
  const events: RunnerEvent[] = [];
  const opened: Errand[] = [];
  const open = async (execute?: ExecuteTask): Promise<Errand> => {
    const errand = await createErrand({
      env: { ERRAND_HOME: home },
      config: { retryDelayMs: 0, ...options.config },
      // A harness opened without an executor must never fall back to errand's own browsers.
      executor: () => ({ execute: execute ?? noExecutor, shutdown: () => Promise.resolve() }),
      runnerId: options.runnerId ?? "test-runner",
      onRunnerEvent: (event) => events.push(event),
      ...(options.location === undefined ? {} : { location: options.location }),
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    });
    opened.push(errand);
    return errand;
  };
  const first = await open(options.execute);
  return {
    home,
    dbPath: sqliteStorePath(home),
    location: first.location,
    key,
    sealer: createJournalSealer(deriveSubkey(key, "journal")),
    config: first.config,
    errand: first,
    store: first.store,
    artifactStore: first.artifactStore,
    service: first.service,
    events,
    secrets: () => first.secretRegistry(),
    files: () => first.fileRegistry(),
    async reopen(execute) {
      const again = await open(execute);
      return { store: again.store, service: again.service, artifactStore: again.artifactStore };
    },
    async close() {
      for (const errand of opened) await errand.close();
      if (options.home === undefined) rmSync(home, { recursive: true, force: true });
    },
  };
}

const noExecutor: ExecuteTask = () => Promise.reject(new Error("this test harness was opened without an executor, so it cannot run an attempt"));
