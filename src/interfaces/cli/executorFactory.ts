import { wiredExecutor } from "../../app/wiredExecutor.js";
import type { ExecutorSettings, ExecutorSource, WiredExecutor } from "../../app/wiredExecutor.js";
import { addOutputSecret, printErr } from "./output.js";

export type { ExecutorSettings as ExecutorFactoryOptions, WiredExecutor };

/**
 * errand's own executor as the CLI runs it: notices go to stderr, and every secret or session value
 * an attempt reveals is scrubbed from everything this process prints (progress, logs, errors).
 */
export const createExecutor: ExecutorSource = (settings) =>
  wiredExecutor({ onNotice: (message) => printErr(`notice: ${message}`), onRevealed: addOutputSecret, ...settings });
