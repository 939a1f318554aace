import { resolveRuntimeConfig } from "../../config/runtimeConfig.js";
import type { ExecuteTask } from "../../executor/executeTaskTypes.js";
import type { LoginHandoff } from "../../executor/loginHandoff.js";
import type { ProviderEvent } from "../../providers/cloudProviderOptions.js";
import type { ProviderStore } from "../../store/ProviderStore.js";
import { printErr } from "./output.js";

/** What the CLI knows when it needs an executor for `errand runner`. */
export interface ExecutorFactoryOptions {
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
}

/** An executor and the way to release what it holds (a warm browser, the provider store) when the runner exits. */
export interface WiredExecutor {
  execute: ExecuteTask;
  /** A live login browser for the site NAME (null: no such site); see src/executor/loginHandoff.ts. */
  openLogin?(name: string, budgetMs: number): Promise<LoginHandoff | null>;
  /** The router's provider store (states, smokes, slots, budgets), where a provider smoke records its verdict. */
  providerStore?: ProviderStore;
  shutdown(): Promise<void>;
}

/**
 * The one place the CLI obtains the executor `errand runner` (and run, serve) uses: the provider
 * router (src/router) over the local provider and the cloud adapters, under the network policy.
 * It keeps the providers' circuit breakers itself, which is why openOperations tells the runner
 * not to. With no cloud credential configured it runs every task on local Chromium.
 */
export async function createExecutor(options: ExecutorFactoryOptions): Promise<WiredExecutor> {
  // Loaded on demand: the browser library costs every other command ~0.4 s of start-up.
  const { buildRoutedExecutor } = await import("./buildRoutedExecutor.js");
  const config = resolveRuntimeConfig(options.env, { browserTimeoutMs: options.browserTimeoutMs });
  const built = buildRoutedExecutor({
    env: options.env,
    allowPrivate: options.allowPrivate,
    config,
    ...(options.onProviderEvent === undefined ? {} : { onProviderEvent: options.onProviderEvent }),
    onNotice: (message) => printErr(`notice: ${message}`),
    keepSpare: options.longLived === true,
  });
  return { execute: built.execute, providerStore: built.store, openLogin: (name, budgetMs) => built.openLogin(name, budgetMs), shutdown: () => built.shutdown() };
}
