import type { ExecuteTask } from "../../executor/executeTaskTypes.js";

/** What the CLI knows when it needs an executor for `errand runner`. */
export interface ExecutorFactoryOptions {
  env: NodeJS.ProcessEnv;
  /** --allow-private HOST:PORT flags (the operator's exact private destinations). */
  allowPrivate: readonly string[];
  /** Browser time per attempt when the task sets no timeouts.taskMs (ms; ERRAND_BROWSER_TIMEOUT_MS). */
  browserTimeoutMs: number;
}

/** An executor and the way to release what it holds (a warm browser) when the runner exits. */
export interface WiredExecutor {
  execute: ExecuteTask;
  shutdown(): Promise<void>;
}

/** The one place the CLI obtains the executor `errand runner` uses: local Chromium under the network policy. */
export async function createExecutor(options: ExecutorFactoryOptions): Promise<WiredExecutor> {
  // Loaded on demand: the browser library costs every other command ~0.4 s of start-up.
  const { buildExecutor } = await import("./buildExecutor.js");
  const built = buildExecutor(options.env, options.allowPrivate, options.browserTimeoutMs);
  return { execute: built.execute, shutdown: () => built.shutdown() };
}
