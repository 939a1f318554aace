import type { Browser } from "playwright-core";
import { CLEANUP_BOUND_MS, withinBound } from "./cleanupBound.js";
import { DEFAULT_START_TIMEOUT_MS } from "./cloudProviderOptions.js";
import type { CloudProviderOptions, ProviderEvent } from "./cloudProviderOptions.js";
import { providerErrorFrom } from "./providerErrorFrom.js";
import { ProviderError } from "./providerTypes.js";
import type { OpenSessionOptions, ProviderSession } from "./providerTypes.js";

/** What a provider's create call hands back: its id for the session and the CDP URL (a secret). */
export interface CreatedSession {
  sessionId?: string;
  cdpUrl: string;
  /** Further secrets the response carried (a signing key), kept out of messages like the URL. */
  secrets?: readonly string[];
}

/** The provider-specific parts of opening a cloud session; the flow around them is shared. */
export interface CdpSessionSpec {
  /** Machine name ("kernel"), reported in receipts. */
  provider: string;
  /** Display name ("Kernel"), used in messages. */
  displayName: string;
  /** The variable that holds the credential, named in auth failures. */
  credentialEnv: string;
  /** Credentials that must never appear in a message. */
  secrets: readonly (string | undefined)[];
  /** Starts a session at the provider; must not retry by itself (no idempotency keys exist). */
  create: (request: { timeoutMs: number; signal: AbortSignal }) => Promise<CreatedSession>;
  /** Ends the session at the provider. Called once per created session, inside the cleanup bound. */
  release?: (sessionId: string, signal: AbortSignal) => Promise<void>;
  /**
   * After a create whose outcome errand cannot know (timeout, dropped connection, 5xx), finds the
   * session the provider may have started anyway by the name errand gave it, and ends it.
   * Returns how many sessions it ended.
   */
  sweepAfterUnclearCreate?: (signal: AbortSignal) => Promise<number>;
}

/** Of the cleanup bound, the most spent waiting for Playwright to close its CDP connection. */
const DISCONNECT_SHARE = 0.3;

/**
 * Opens one cloud browser session: create it (once, within the start deadline), connect
 * Playwright over CDP, hand back the provider's default context. Any failure after create
 * releases what was created before the error is thrown. The returned session's release closes the
 * CDP connection and ends the session at the provider within the cleanup bound, never throws,
 * and runs at most once. CDP URLs and credentials never reach an error message or an event.
 */
export async function openCdpSession(spec: CdpSessionSpec, open: OpenSessionOptions, options: CloudProviderOptions): Promise<ProviderSession> {
  const startMs = Math.max(1, Math.min(options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS, open.budgetMs));
  const boundMs = options.cleanupBoundMs ?? CLEANUP_BOUND_MS;
  const deadline = Date.now() + startMs;
  const remaining = () => Math.max(1, deadline - Date.now());
  const emit = (event: Omit<ProviderEvent, "provider">) => options.onEvent?.({ provider: spec.provider, ...event });
  const failure = (error: unknown, action: string, extraSecrets: readonly string[] = [], timeoutMs?: number) =>
    providerErrorFrom(error, {
      provider: spec.displayName,
      action,
      credentialEnv: spec.credentialEnv,
      secrets: [...spec.secrets, ...extraSecrets],
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    });

  if (open.signal.aborted) throw new ProviderError("provider_unavailable", `The attempt was cancelled before a ${spec.displayName} session was created.`);
  // Before anything is created (and billed) at the provider: a host that cannot drive a browser over CDP says so, as its own configuration.
  const connect = options.connect ?? (await cdpConnector(spec.displayName));

  let created: CreatedSession;
  const createTimeoutMs = remaining();
  try {
    created = await spec.create({ timeoutMs: createTimeoutMs, signal: open.signal });
  } catch (error) {
    const mapped = failure(error, "creating a browser session", [], createTimeoutMs);
    if (mapped.code === "provider_unavailable" && spec.sweepAfterUnclearCreate !== undefined) {
      const sweep = spec.sweepAfterUnclearCreate;
      let ended = 0;
      const outcome = await withinBound(boundMs, async (signal) => {
        ended = await sweep(signal);
      });
      emit({
        kind: "orphan_cleanup",
        message: outcome.ok
          ? `After an unclear create, errand looked for a session ${spec.displayName} may have started anyway and ended ${ended}.`
          : `After an unclear create, errand could not check for a session ${spec.displayName} may have started anyway (${describeBounded(outcome, boundMs, (e) => failure(e, "cleaning up").message)}); the provider-side timeout errand set will end it.`,
      });
    }
    throw mapped;
  }

  const secrets = [created.cdpUrl, ...(created.secrets ?? [])];
  const { sessionId } = created;
  emit({
    kind: "session_created",
    ...(sessionId === undefined ? {} : { sessionId }),
    message: `${spec.displayName} session ${sessionId ?? "(unnamed)"} was created.`,
  });

  const endAtProvider = async (browser: Browser | null): Promise<void> => {
    const outcome = await withinBound(boundMs, async (signal) => {
      if (browser !== null) await settleWithin(browser.close(), Math.round(boundMs * DISCONNECT_SHARE));
      if (spec.release !== undefined && sessionId !== undefined) await spec.release(sessionId, signal);
    });
    if (outcome.ok) {
      emit({
        kind: "session_released",
        ...(sessionId === undefined ? {} : { sessionId }),
        message: `${spec.displayName} session ${sessionId ?? "(unnamed)"} was released.`,
      });
    } else {
      emit({
        kind: "release_failed",
        ...(sessionId === undefined ? {} : { sessionId }),
        message: `Releasing ${spec.displayName} session ${sessionId ?? "(unnamed)"} failed (${describeBounded(outcome, boundMs, (e) => failure(e, "releasing the session", secrets).message)}); the provider-side timeout errand set will end it.`,
      });
    }
  };

  let browser: Browser;
  const connectTimeoutMs = remaining();
  try {
    if (open.signal.aborted)
      throw new ProviderError("provider_unavailable", `The attempt was cancelled before errand connected to the ${spec.displayName} browser.`);
    browser = await connect(created.cdpUrl, connectTimeoutMs);
  } catch (error) {
    await endAtProvider(null);
    throw failure(error, "connecting to the browser over CDP", secrets, connectTimeoutMs);
  }

  const context = browser.contexts()[0];
  if (context === undefined) {
    await endAtProvider(browser);
    throw new ProviderError("provider_unavailable", `The ${spec.displayName} browser has no default context to drive.`);
  }

  let releasing: Promise<void> | null = null;
  let lost: string | null = null;
  let announceLoss: (reason: string) => void = () => undefined;
  const whenLost = new Promise<string>((resolve) => (announceLoss = resolve));
  const lostMessage = `${spec.displayName} ended the browser connection during the task (dropped connection, browser crash or the provider's session timeout).`;
  browser.on("disconnected", () => {
    if (releasing !== null || lost !== null) return;
    lost = lostMessage;
    emit({ kind: "session_lost", ...(sessionId === undefined ? {} : { sessionId }), message: lostMessage });
    announceLoss(lostMessage);
  });

  return {
    provider: spec.provider,
    context,
    ...(sessionId === undefined ? {} : { sessionId }),
    ownsContext: false,
    lostReason: () => lost ?? (releasing === null && !browser.isConnected() ? lostMessage : null),
    whenLost,
    release: () => (releasing ??= endAtProvider(browser)),
  };
}

/**
 * Playwright's CDP connection, its library loaded at the first CDP session, so program mode and
 * hosts that never open one never load it. A host that cannot load it (Deno without --allow-all,
 * Val Town) is refused as a configuration error, which leaves the provider's health alone.
 */
async function cdpConnector(displayName: string): Promise<(cdpUrl: string, timeoutMs: number) => Promise<Browser>> {
  let chromium;
  try {
    ({ chromium } = await import("playwright-core"));
  } catch (error) {
    throw new ProviderError(
      "configuration_error",
      `This host cannot load playwright-core, which driving a ${displayName} browser over CDP needs (${(error instanceof Error ? error.message : String(error)).slice(0, 200)}). On Deno or Val Town, run the provider in program mode (ERRAND_MODE_<PROVIDER>=program, Kernel and Browserless).`,
    );
  }
  return (cdpUrl, timeoutMs) => chromium.connectOverCDP(cdpUrl, { timeout: timeoutMs });
}

/** Waits for a promise to settle, but no longer than ms; never rejects. */
async function settleWithin(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work.catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

function describeBounded(
  outcome: { ok: false; reason: "timed_out" | "failed"; error?: unknown },
  boundMs: number,
  explain: (error: unknown) => string,
): string {
  return outcome.reason === "timed_out" ? `no answer within the ${boundMs} ms cleanup bound` : explain(outcome.error);
}
