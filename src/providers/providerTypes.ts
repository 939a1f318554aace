import type { BrowserContext, Page } from "playwright-core";
import { ErrandError } from "../errors/errandError.js";
import type { ProgramAnswer, ProgramDialect, ProgramRun } from "./programRun.js";

/** One browser session on one provider, for one attempt. Release is always called, in finally. */
export interface ProviderSession {
  provider: string;
  context: BrowserContext;
  /** The provider's id for the session; shown live, persisted only with full retention. */
  sessionId?: string;
  /** True when errand created the context and may set its options (service workers, downloads). */
  ownsContext: boolean;
  /**
   * A blank page the provider already opened in the context, for the task's main page (local: a
   * spare opened before the task came). Absent: the executor opens one.
   */
  page?: Page;
  /** Connections the session's egress filter refused (local provider only), for the receipt. */
  egressBlocked?: () => { method: string; host: string; port: number; code: string; reason: string }[];
  /**
   * Writes the browser itself refused for this session: a local read_only session's browser fails
   * every method but GET/HEAD/OPTIONS (src/providers/local/browserWriteGuard.ts). All are counted,
   * the first ones listed, for the receipt. Absent for write sessions and cloud providers.
   */
  writesStopped?: () => { count: number; listed: { url: string; method: string; resourceType: string }[] };
  /**
   * Stops all of the session's network traffic for good and then closes its pages, so nothing a
   * page sends while it unloads (pagehide/unload handlers, beacons, keepalive fetches) reaches the
   * network; what is refused meanwhile still shows in egressBlocked. Local provider only; never throws.
   */
  seal?(): Promise<void>;
  /**
   * Tells the session's egress proxy what errand's in-browser guard decided about a request before
   * the browser connects for it: let through (no `stopped`) admits the browser's tunnels to that
   * URL's host and port; a stopped top-level navigation (`stopped`) refuses the tunnel Chromium opened
   * on its own ahead of it (src/providers/local/tunnelGate.ts). Local provider only.
   */
  requestJudged?(url: string, stopped?: { code: string; reason: string }): void;
  /**
   * Fetches a main-frame document for the browser (no redirects followed) through the session's
   * own egress filter, streaming with a size cap. Absent: the executor uses Playwright's route.fetch
   * (cloud providers), which holds the whole body in memory.
   */
  fetchDocument?: (request: DocumentRequest) => Promise<DocumentResponse>;
  /** Ends the session; must finish (or give up) within the cleanup bound and never throw. */
  release(): Promise<void>;
  /**
   * Why the provider ended the session under errand (connection dropped, browser crashed, the
   * provider's own session timeout), or null while it is intact. Read by the executor when a step
   * fails, so a lost browser is reported as provider_unavailable rather than as a site failure.
   */
  lostReason?(): string | null;
  /**
   * Settles with the same reason the moment the provider ends the session under errand; never
   * settles otherwise. The executor stops waiting on a run whose browser is gone: Playwright leaves
   * some calls (a new page still initializing) pending forever after a dropped CDP connection.
   */
  whenLost?: Promise<string>;
}

export interface OpenSessionOptions {
  /** Milliseconds the whole attempt may take; providers size their own session timeouts from it. */
  budgetMs: number;
  signal: AbortSignal;
  /** What the task may reach, for a provider that filters egress itself (local). Absent: nothing private, no writes. */
  scope?: SessionScope;
}

/** A main-frame request as the browser would send it. */
export interface DocumentRequest {
  url: string;
  method: string;
  /** The browser's request headers, cookies included. */
  headers: Record<string, string>;
  body: Buffer | null;
}

/** A fetched document, its body decoded and within the cap. */
export interface DocumentResponse {
  status: number;
  headers: { name: string; value: string }[];
  body: Buffer;
}

const DOCUMENT_FETCH_CODES = {
  document_too_large: "document_too_large",
  download_too_large: "download_too_large",
  refused: "network_blocked",
  timeout: "timeout",
  failed: "provider_unavailable",
} as const;

/**
 * Why a document fetch failed: document_too_large (past ERRAND_MAX_DOCUMENT_BYTES),
 * download_too_large (a response marked as a download, past ERRAND_DOWNLOAD_MAX_BYTES), refused (the
 * egress proxy said no), timeout, or failed (connection or protocol error).
 */
export class DocumentFetchError extends ErrandError {
  constructor(
    readonly reason: "document_too_large" | "download_too_large" | "refused" | "timeout" | "failed",
    message: string,
  ) {
    super(DOCUMENT_FETCH_CODES[reason], message);
    this.name = "DocumentFetchError";
  }
}

/** The part of a task the egress filter needs: the hosts it names and whether it may write. */
export interface SessionScope {
  /** The target's host and every allowedHosts entry, normalized (operator allowances apply only to these). */
  hosts: readonly string[];
  readOnly: boolean;
}

export interface BrowserProvider {
  name: string;
  /**
   * "cloud" providers need a credential: a missing one is provider_unconfigured. The "local"
   * provider needs a Chromium: a missing one is configuration_error. Absent means local.
   */
  kind?: "local" | "cloud";
  /** Which configuration is missing, or null when the provider can be used. */
  missingConfiguration(): string | null;
  openSession(options: OpenSessionOptions): Promise<ProviderSession>;
  /**
   * Program mode: the runner this provider offers for a whole task sent as one program (its code
   * written for this dialect). Absent: the provider is driven over CDP only.
   */
  programDialect?: ProgramDialect;
  /**
   * Sends one program and answers what it returned, unvalidated; throws a ProgramRunError saying
   * whether it may have run. Present exactly when programDialect is.
   */
  runProgram?(run: ProgramRun): Promise<ProgramAnswer>;
  /** Frees process-wide resources (a warm browser); idempotent. */
  shutdown(): Promise<void>;
}

export type ProviderErrorCode = "provider_unconfigured" | "provider_auth_failed" | "provider_capacity" | "provider_unavailable" | "configuration_error";

/**
 * A provider failure the router and breaker understand. Codes:
 * - provider_unconfigured: no credential; the provider is skipped, its health untouched.
 * - provider_auth_failed: 401/403; shown on the provider's state, does not open the circuit.
 * - provider_capacity: 429 (concurrency, create rate, queue full); skip until retryAfterSeconds.
 * - provider_unavailable: 5xx, connect failure, dropped connection, provider timeout; feeds the breaker.
 * - configuration_error: errand's own setup (no Chromium, a request the provider rejects as malformed).
 * Messages never carry a credential or a CDP URL.
 */
export class ProviderError extends ErrandError {
  /** Seconds the provider asked us to wait (Retry-After), when it said; only for provider_capacity. */
  readonly retryAfterSeconds?: number;
  /** The HTTP status the provider answered with, when there was one. */
  readonly status?: number;
  /**
   * The provider's own words (its error body or connection error, clipped, credentials scrubbed):
   * they can quote anything, a page included, so the executor puts them in the receipt's
   * error.detail (untrusted wrapper), never in error.message, which is the message above.
   */
  readonly quoted?: string;

  constructor(
    override readonly code: ProviderErrorCode,
    message: string,
    details: { retryAfterSeconds?: number; status?: number; quoted?: string } = {},
  ) {
    super(code, message);
    this.name = "ProviderError";
    if (details.retryAfterSeconds !== undefined) this.retryAfterSeconds = details.retryAfterSeconds;
    if (details.status !== undefined) this.status = details.status;
    if (details.quoted !== undefined && details.quoted !== "") this.quoted = details.quoted;
  }
}
