import { resolveRuntimeConfig } from "../config/runtimeConfig.js";
import type { ExecuteTask } from "../executor/executeTaskTypes.js";
import type { LoginHandoff } from "../executor/loginHandoff.js";
import type { ProviderEvent } from "../providers/cloudProviderOptions.js";
import type { ProviderStore } from "../store/ProviderStore.js";
import type { ExecutorStores } from "./buildRoutedExecutor.js";

/** What errand needs to know to build the executor attempts run on. */
export interface ExecutorSettings {
  env: NodeJS.ProcessEnv;
  /** --allow-private HOST:PORT flags (the operator's exact private destinations). */
  allowPrivate: readonly string[];
  /** Browser time per attempt when the task sets no timeouts.taskMs (ms; ERRAND_BROWSER_TIMEOUT_MS). */
  browserTimeoutMs: number;
  /** Provider session events (created, released, release failed), for the operator's stderr. */
  onProviderEvent?: (event: ProviderEvent) => void;
  /**
   * The process works many tasks (serve, runner --watch): the local provider keeps a spare context
   * and page ready between them, so a task does not wait for one to open. One-shot commands do not.
   */
  longLived?: boolean;
  /** Notices for the operator (local Chromium without its sandbox as root), once, at first launch. */
  onNotice?: (message: string) => void;
  /** Each secret or session value an attempt reveals, so the process can scrub it from everything it prints. */
  onRevealed?: (value: string) => void;
  /** errand's own provider store and registries (createErrand's), so the executor reads the same database under the same key. */
  stores?: ExecutorStores;
  /** False where errand is served as a fetch handler: no local Chromium, cloud providers only. Default true. */
  localBrowser?: boolean;
}

/** An executor and the way to release what it holds (a warm browser, the provider store). */
export interface WiredExecutor {
  execute: ExecuteTask;
  /** A live login browser for the site NAME (null: no such site); see src/executor/loginHandoff.ts. */
  openLogin?(name: string, budgetMs: number): Promise<LoginHandoff | null>;
  /** The router's provider store (states, smokes, slots, budgets), where a provider smoke records its verdict. */
  providerStore?: ProviderStore;
  shutdown(): Promise<void>;
}

/** Where an executor comes from: errand's own (wiredExecutor), or a fake a test or bench passes in. */
export type ExecutorSource = (settings: ExecutorSettings) => WiredExecutor | Promise<WiredExecutor>;

/**
 * errand's own executor: the provider router (src/router) over the local provider and the cloud
 * adapters, under the operator's network policy. It keeps the providers' circuit breakers itself.
 * With no cloud credential configured it runs every task on local Chromium.
 */
export const wiredExecutor: ExecutorSource = async (settings) => {
  // Loaded on demand: the browser library costs every command that runs nothing ~0.4 s of start-up.
  const { buildRoutedExecutor } = await import("./buildRoutedExecutor.js");
  const config = resolveRuntimeConfig(settings.env, { browserTimeoutMs: settings.browserTimeoutMs });
  const built = buildRoutedExecutor({
    env: settings.env,
    allowPrivate: settings.allowPrivate,
    config,
    ...(settings.onProviderEvent === undefined ? {} : { onProviderEvent: settings.onProviderEvent }),
    ...(settings.onNotice === undefined ? {} : { onNotice: settings.onNotice }),
    ...(settings.onRevealed === undefined ? {} : { onRevealed: settings.onRevealed }),
    keepSpare: settings.longLived === true,
    ...(settings.stores === undefined ? {} : { stores: settings.stores }),
    ...(settings.localBrowser === undefined ? {} : { localBrowser: settings.localBrowser }),
  });
  return {
    execute: built.execute,
    providerStore: built.store,
    openLogin: (name, budgetMs) => built.openLogin(name, budgetMs),
    shutdown: () => built.shutdown(),
  };
};
