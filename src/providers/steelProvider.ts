import { randomUUID } from "node:crypto";
import { MINUTE } from "../config/units.js";
import type { CloudProviderOptions } from "./cloudProviderOptions.js";
import { DEFAULT_SESSION_GRACE_MS, readEnv } from "./cloudProviderOptions.js";
import { openCdpSession } from "./openCdpSession.js";
import type { BrowserProvider, OpenSessionOptions, ProviderSession } from "./providerTypes.js";
import { ProviderError } from "./providerTypes.js";
import { PROVIDER_CREDENTIALS } from "./providerCredentials.js";

export const STEEL_DEFAULT_BASE_URL = "https://api.steel.dev";
/** The Launch (free) plan's longest session; STEEL_MAX_SESSION_MS raises it on a bigger plan. */
export const STEEL_DEFAULT_MAX_SESSION_MS = 15 * MINUTE;
/** A session timeout shorter than this is not useful and may be refused. */
const STEEL_MIN_TIMEOUT_MS = 10_000;

/** The attempt budget plus grace as Steel's session timeout in milliseconds, within 10 s .. the plan's maximum. */
export function steelTimeoutMs(budgetMs: number, graceMs: number = DEFAULT_SESSION_GRACE_MS, maxSessionMs: number = STEEL_DEFAULT_MAX_SESSION_MS): number {
  const wanted = Math.ceil(Math.max(0, budgetMs + graceMs));
  return Math.min(maxSessionMs, Math.max(STEEL_MIN_TIMEOUT_MS, wanted));
}

/** Steel's CDP URL is its websocketUrl with the API key added as apiKey. */
export function steelCdpUrl(websocketUrl: string, apiKey: string): string {
  const url = new URL(websocketUrl);
  url.searchParams.set("apiKey", apiKey);
  return url.toString();
}

/**
 * Steel (https://steel.dev) through steel-sdk. Env: STEEL_API_KEY (required), STEEL_BASE_URL
 * (optional), STEEL_REGION (optional: lax, ord, iad), STEEL_MAX_SESSION_MS (optional; the plan's
 * longest session, default 15 minutes). Each attempt creates a session under a session id errand
 * chose (so an unclear create can be released by that id), with its timeout in milliseconds,
 * and always releases it: an unreleased Steel session is metered until its timeout.
 */
export function createSteelProvider(options: CloudProviderOptions): BrowserProvider {
  const apiKey = () => readEnv(options.env, "STEEL_API_KEY");
  const missing = PROVIDER_CREDENTIALS.steel.missing;

  return {
    name: "steel",
    kind: "cloud",
    missingConfiguration: () => (apiKey() === undefined ? missing : null),
    async openSession(open: OpenSessionOptions): Promise<ProviderSession> {
      const key = apiKey();
      if (key === undefined) throw new ProviderError("provider_unconfigured", missing);
      const maxSessionMs = readMaxSession(options.env);
      const region = readEnv(options.env, "STEEL_REGION");
      // The SDK loads when a session opens, not with errand run / runner / serve (it costs each start 0.1-0.5 s).
      const { default: Steel } = await import("steel-sdk");
      const client = new Steel({ steelAPIKey: key, baseURL: readEnv(options.env, "STEEL_BASE_URL") ?? STEEL_DEFAULT_BASE_URL, maxRetries: 0 });
      const chosenId = randomUUID();
      const release = async (id: string, signal: AbortSignal, maxRetries: number): Promise<boolean> => {
        try {
          await client.sessions.release(id, {}, { signal, maxRetries });
          return true;
        } catch (error) {
          if ((error as { status?: unknown }).status === 404) return false;
          throw error;
        }
      };

      return openCdpSession(
        {
          provider: "steel",
          displayName: "Steel",
          credentialEnv: "STEEL_API_KEY",
          secrets: [key],
          async create({ timeoutMs, signal }) {
            const session = await client.sessions.create(
              {
                sessionId: chosenId,
                timeout: steelTimeoutMs(open.budgetMs, options.sessionGraceMs, maxSessionMs),
                useProxy: false,
                solveCaptcha: false,
                ...(region === undefined ? {} : { region }),
              },
              { maxRetries: 0, timeout: timeoutMs, signal },
            );
            return { sessionId: session.id, cdpUrl: steelCdpUrl(session.websocketUrl, key) };
          },
          async release(sessionId, signal) {
            await release(sessionId, signal, 2);
          },
          async sweepAfterUnclearCreate(signal) {
            return (await release(chosenId, signal, 1)) ? 1 : 0;
          },
        },
        open,
        options,
      );
    },
    shutdown: () => Promise.resolve(),
  };
}

function readMaxSession(env: NodeJS.ProcessEnv): number {
  const raw = readEnv(env, "STEEL_MAX_SESSION_MS");
  if (raw === undefined) return STEEL_DEFAULT_MAX_SESSION_MS;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < STEEL_MIN_TIMEOUT_MS)
    throw new ProviderError(
      "configuration_error",
      `STEEL_MAX_SESSION_MS must be a whole number of milliseconds, at least ${STEEL_MIN_TIMEOUT_MS}, not "${raw}".`,
    );
  return value;
}
