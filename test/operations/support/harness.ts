// Builds a real SQLite store in a temporary ERRAND_HOME and the operations service over it. Not a test file.
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
import { openSqliteStore, sqliteStorePath } from "../../../src/store/sqlite/openSqliteStore.js";
import type { Store } from "../../../src/store/Store.js";

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
  key: Buffer;
  sealer: JournalSealer;
  config: RuntimeConfig;
  store: Store;
  service: OperationsService;
  events: RunnerEvent[];
  /** Opens another store + service on the same files (another "process"). */
  reopen(execute?: ExecuteTask): { store: Store; service: OperationsService };
  close(): Promise<void>;
}

export function makeTempHome(): string {
  return mkdtempSync(join(tmpdir(), "errand-ops-"));
}

export function openHarness(options: { home?: string; clock?: () => number; execute?: ExecuteTask; config?: Partial<RuntimeConfig>; runnerId?: string } = {}): Harness {
  const home = options.home ?? makeTempHome();
  const config = resolveRuntimeConfig({ ERRAND_HOME: home }, { retryDelayMs: 0, ...options.config });
  const key = loadOrCreateMasterKey(home);
  const sealer = createJournalSealer(deriveSubkey(key, "journal"));
  const dbPath = sqliteStorePath(home);
  const events: RunnerEvent[] = [];
  const opened: Store[] = [];
  const open = (execute?: ExecuteTask) => {
    const store = openSqliteStore({ path: dbPath, sealer, busyTimeoutMs: config.busyTimeoutMs, ...(options.clock === undefined ? {} : { clock: options.clock }) });
    opened.push(store);
    const service = createOperationsService({
      store,
      sealer,
      digestKey: key,
      config,
      ...(execute === undefined ? {} : { execute }),
      runnerId: options.runnerId ?? "test-runner",
      onRunnerEvent: (event) => events.push(event),
    });
    return { store, service };
  };
  const first = open(options.execute);
  return {
    home,
    dbPath,
    key,
    sealer,
    config,
    store: first.store,
    service: first.service,
    events,
    reopen: open,
    async close() {
      for (const store of opened) await store.close();
      if (options.home === undefined) rmSync(home, { recursive: true, force: true });
    },
  };
}
