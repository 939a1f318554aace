import type { BrowserProvider, OpenSessionOptions, ProviderSession } from "../providers/providerTypes.js";
import { ProviderError } from "../providers/providerTypes.js";
import type { ProgramAnswer, ProgramRun } from "../providers/programRun.js";
import { ProgramRunError } from "../providers/programRun.js";

/** What the router learns about one attempt's session that the receipt does not carry. */
export interface SessionMeter {
  /** True once the executor asked for a session (it may have failed). */
  opened(): boolean;
  /**
   * Session time to bill against the budget (ms): from the create call to the end of release. A
   * create that failed for an unclear reason (provider_unavailable: a timeout, a 5xx) may have
   * started a billed browser anyway, so its time counts; a clear refusal (401, 429, a malformed
   * request, no credential) started nothing and counts 0.
   */
  sessionMs(): number;
  /** The ProviderError the session failed to open with (it carries Retry-After), or null. */
  openError(): ProviderError | null;
}

const CLEAR_REFUSALS = new Set(["provider_unconfigured", "provider_auth_failed", "provider_capacity", "configuration_error"]);

/** Wraps a provider so the router can see how long its session lived and why it failed to open. */
export function meterProvider(inner: BrowserProvider, clock: () => number = Date.now): { provider: BrowserProvider; meter: SessionMeter } {
  let startedAt: number | null = null;
  let endedAt: number | null = null;
  let failure: ProviderError | null = null;
  const provider: BrowserProvider = {
    name: inner.name,
    ...(inner.kind === undefined ? {} : { kind: inner.kind }),
    missingConfiguration: () => inner.missingConfiguration(),
    shutdown: () => inner.shutdown(),
    // A program is one session from send to answer: billed like one, whatever its outcome, unless the provider clearly refused it.
    ...(inner.programDialect === undefined || inner.runProgram === undefined
      ? {}
      : {
          programDialect: inner.programDialect,
          runProgram: async (run: ProgramRun): Promise<ProgramAnswer> => {
            const send = inner.runProgram?.bind(inner);
            if (send === undefined) throw new ProviderError("configuration_error", `${inner.name} has no program runner.`);
            startedAt = clock();
            try {
              return await send(run);
            } catch (error) {
              if (error instanceof ProviderError) failure = error;
              endedAt = error instanceof ProgramRunError && !error.mayHaveRun && CLEAR_REFUSALS.has(error.code) ? startedAt : clock();
              throw error;
            } finally {
              endedAt ??= clock();
            }
          },
        }),
    async openSession(options: OpenSessionOptions): Promise<ProviderSession> {
      startedAt = clock();
      let session: ProviderSession;
      try {
        session = await inner.openSession(options);
      } catch (error) {
        if (error instanceof ProviderError) failure = error;
        endedAt = error instanceof ProviderError && CLEAR_REFUSALS.has(error.code) ? startedAt : clock();
        throw error;
      }
      const release = session.release.bind(session);
      return Object.assign(Object.create(session) as ProviderSession, session, {
        release: async () => {
          try {
            await release();
          } finally {
            endedAt ??= clock();
          }
        },
      });
    },
  };
  return {
    provider,
    meter: {
      opened: () => startedAt !== null,
      sessionMs: () => (startedAt === null ? 0 : Math.max(0, (endedAt ?? clock()) - startedAt)),
      openError: () => failure,
    },
  };
}
