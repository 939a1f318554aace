import { randomUUID } from "node:crypto";
import type { CloudProviderOptions } from "./cloudProviderOptions.js";
import { DEFAULT_SESSION_GRACE_MS, readEnv } from "./cloudProviderOptions.js";
import { openCdpSession } from "./openCdpSession.js";
import type { BrowserProvider, OpenSessionOptions, ProviderSession } from "./providerTypes.js";
import { ProviderError } from "./providerTypes.js";
import { PROVIDER_CREDENTIALS } from "./providerCredentials.js";

/** Browserbase's documented bounds for a session timeout, in seconds (1 minute .. 6 hours). */
export const BROWSERBASE_MIN_TIMEOUT_SECONDS = 60;
export const BROWSERBASE_MAX_TIMEOUT_SECONDS = 21_600;
export const BROWSERBASE_DEFAULT_BASE_URL = "https://api.browserbase.com";
export const BROWSERBASE_REGIONS = ["us-west-2", "us-east-1", "eu-central-1", "ap-southeast-1"] as const;
type BrowserbaseRegion = (typeof BROWSERBASE_REGIONS)[number];

/** The user-metadata key errand tags its sessions with, so an unclear create can be found again. */
export const BROWSERBASE_METADATA_KEY = "errandAttempt";

/** The attempt budget plus grace as Browserbase's session timeout: seconds rounded up, held to 60..21600. */
export function browserbaseTimeoutSeconds(budgetMs: number, graceMs: number = DEFAULT_SESSION_GRACE_MS): number {
  const seconds = Math.ceil(Math.max(0, budgetMs + graceMs) / 1000);
  return Math.min(BROWSERBASE_MAX_TIMEOUT_SECONDS, Math.max(BROWSERBASE_MIN_TIMEOUT_SECONDS, seconds));
}

/**
 * Browserbase (https://www.browserbase.com) through @browserbasehq/sdk. Env: BROWSERBASE_API_KEY
 * (required), BROWSERBASE_PROJECT_ID (optional; the API infers it from the key),
 * BROWSERBASE_REGION (optional: us-west-2, us-east-1, eu-central-1, ap-southeast-1),
 * BROWSERBASE_BASE_URL (optional). Sessions are created without keepAlive, with recording and
 * session logs off (a recording would capture what fill_secret typed), tagged with a metadata
 * value unique to the attempt, and always released with REQUEST_RELEASE. Every session is billed
 * for at least one minute.
 */
export function createBrowserbaseProvider(options: CloudProviderOptions): BrowserProvider {
  const apiKey = () => readEnv(options.env, "BROWSERBASE_API_KEY");
  const missing = PROVIDER_CREDENTIALS.browserbase.missing;

  return {
    name: "browserbase",
    kind: "cloud",
    missingConfiguration: () => (apiKey() === undefined ? missing : null),
    async openSession(open: OpenSessionOptions): Promise<ProviderSession> {
      const key = apiKey();
      if (key === undefined) throw new ProviderError("provider_unconfigured", missing);
      const projectId = readEnv(options.env, "BROWSERBASE_PROJECT_ID");
      const region = readRegion(options.env);
      // The SDK loads when a session opens, not with errand run / runner / serve (it costs each start 0.1-0.5 s).
      const { default: Browserbase } = await import("@browserbasehq/sdk");
      const client = new Browserbase({ apiKey: key, baseURL: readEnv(options.env, "BROWSERBASE_BASE_URL") ?? BROWSERBASE_DEFAULT_BASE_URL, maxRetries: 0 });
      const tag = randomUUID();
      const requestRelease = (id: string, signal: AbortSignal, maxRetries: number) =>
        client.sessions.update(id, { status: "REQUEST_RELEASE", ...(projectId === undefined ? {} : { projectId }) }, { signal, maxRetries });

      return openCdpSession(
        {
          provider: "browserbase",
          displayName: "Browserbase",
          credentialEnv: "BROWSERBASE_API_KEY",
          secrets: [key],
          async create({ timeoutMs, signal }) {
            const session = await client.sessions.create(
              {
                ...(projectId === undefined ? {} : { projectId }),
                ...(region === undefined ? {} : { region }),
                api_timeout: browserbaseTimeoutSeconds(open.budgetMs, options.sessionGraceMs),
                keepAlive: false,
                browserSettings: { recordSession: false, logSession: false },
                userMetadata: { [BROWSERBASE_METADATA_KEY]: tag },
              },
              { maxRetries: 0, timeout: timeoutMs, signal },
            );
            return { sessionId: session.id, cdpUrl: session.connectUrl, secrets: [session.signingKey] };
          },
          async release(sessionId, signal) {
            await requestRelease(sessionId, signal, 2);
          },
          async sweepAfterUnclearCreate(signal) {
            const found = await client.sessions.list({ q: `user_metadata['${BROWSERBASE_METADATA_KEY}']:'${tag}'` }, { signal, maxRetries: 1 });
            let ended = 0;
            for (const session of found) {
              if (session.status !== "RUNNING" && session.status !== "PENDING") continue;
              await requestRelease(session.id, signal, 1);
              ended += 1;
            }
            return ended;
          },
        },
        open,
        options,
      );
    },
    shutdown: () => Promise.resolve(),
  };
}

function readRegion(env: NodeJS.ProcessEnv): BrowserbaseRegion | undefined {
  const region = readEnv(env, "BROWSERBASE_REGION");
  if (region === undefined) return undefined;
  const known = BROWSERBASE_REGIONS.find((r) => r === region);
  if (known === undefined)
    throw new ProviderError("configuration_error", `BROWSERBASE_REGION must be one of ${BROWSERBASE_REGIONS.join(", ")}, not "${region}".`);
  return known;
}
