import type { Browser } from "playwright-core";
import { SECOND } from "../config/units.js";

/** Something that happened to a provider session that an operator may want in a log. Never carries a credential or CDP URL. */
export interface ProviderEvent {
  kind: "session_created" | "session_released" | "release_failed" | "orphan_cleanup" | "session_lost";
  provider: string;
  sessionId?: string;
  message: string;
}

/** Options every cloud adapter takes. */
export interface CloudProviderOptions {
  /** Where credentials and base URLs are read from (process.env in production, a literal in tests). */
  env: NodeJS.ProcessEnv;
  /** Longest time creating and connecting to a session may take (ms); the attempt budget caps it too. Default 30 s. */
  startTimeoutMs?: number;
  /** Longest time releasing a session may take (ms). Default 5 s. */
  cleanupBoundMs?: number;
  /** Extra time beyond the attempt budget before the provider ends the session itself (ms). Default 15 s. */
  sessionGraceMs?: number;
  /** Receives session lifecycle events (for the logger). */
  onEvent?: (event: ProviderEvent) => void;
  /** Connects Playwright to a CDP WebSocket URL; defaults to playwright-core's chromium.connectOverCDP. */
  connect?: (cdpUrl: string, timeoutMs: number) => Promise<Browser>;
}

export const DEFAULT_START_TIMEOUT_MS = 30 * SECOND;
export const DEFAULT_SESSION_GRACE_MS = 15 * SECOND;

/** Reads an environment variable, treating an empty string as unset. */
export function readEnv(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}
