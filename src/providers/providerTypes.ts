import type { BrowserContext } from "playwright-core";

/** One browser session on one provider, for one attempt. Release is always called, in finally. */
export interface ProviderSession {
  provider: string;
  context: BrowserContext;
  /** The provider's id for the session; shown live, persisted only with full retention. */
  sessionId?: string;
  /** True when errand created the context and may set its options (service workers, downloads). */
  ownsContext: boolean;
  /** Ends the session; must finish (or give up) within the cleanup bound and never throw. */
  release(): Promise<void>;
}

export interface OpenSessionOptions {
  /** Milliseconds the whole attempt may take; providers size their own session timeouts from it. */
  budgetMs: number;
  signal: AbortSignal;
}

export interface BrowserProvider {
  name: string;
  /** Which configuration is missing, or null when the provider can be used. */
  missingConfiguration(): string | null;
  openSession(options: OpenSessionOptions): Promise<ProviderSession>;
  /** Frees process-wide resources (a warm browser); idempotent. */
  shutdown(): Promise<void>;
}

/** A provider failure the router and breaker understand. */
export class ProviderError extends Error {
  constructor(
    readonly code: "provider_unconfigured" | "provider_auth_failed" | "provider_capacity" | "provider_unavailable" | "configuration_error",
    message: string,
  ) {
    super(message);
  }
}
