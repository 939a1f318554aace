import { randomUUID } from "node:crypto";
import { SECOND } from "../config/units.js";
import type { CloudProviderOptions } from "./cloudProviderOptions.js";
import { DEFAULT_SESSION_GRACE_MS, readEnv } from "./cloudProviderOptions.js";
import { openCdpSession } from "./openCdpSession.js";
import type { BrowserProvider, OpenSessionOptions, ProviderSession } from "./providerTypes.js";
import { ProviderError } from "./providerTypes.js";
import { PROVIDER_CREDENTIALS } from "./providerCredentials.js";
import { PROGRAM_DIALECTS } from "./programDialects.js";
import type { ProgramAnswer, ProgramRun } from "./programRun.js";
import { ProgramRunError } from "./programRun.js";
import { PROGRAM_ANSWER_GRACE_MS, sendProgram } from "./sendProgram.js";

/** Browserless's hosted regions and their CDP endpoints. */
export const BROWSERLESS_REGIONS = {
  sfo: "wss://production-sfo.browserless.io",
  lon: "wss://production-lon.browserless.io",
  ams: "wss://production-ams.browserless.io",
} as const;
export type BrowserlessRegion = keyof typeof BROWSERLESS_REGIONS;
/**
 * The longest session errand asks for unless BROWSERLESS_MAX_SESSION_MS says otherwise: the free
 * plan's limit as far as we know (UNVERIFIED; see docs/PROVIDER_CENSUS.md). A longer ask could be refused.
 */
export const BROWSERLESS_DEFAULT_MAX_SESSION_MS = 60 * SECOND;

/** The attempt budget plus grace as Browserless's per-session timeout (ms), capped at the plan's maximum. */
export function browserlessTimeoutMs(
  budgetMs: number,
  graceMs: number = DEFAULT_SESSION_GRACE_MS,
  maxSessionMs: number = BROWSERLESS_DEFAULT_MAX_SESSION_MS,
): number {
  return Math.max(1, Math.min(maxSessionMs, Math.ceil(Math.max(0, budgetMs + graceMs))));
}

/**
 * The CDP WebSocket URL for one session: the base endpoint (an http(s) base becomes ws(s)) with
 * token, timeout and trackingId as query parameters. The result carries the token: it is a secret.
 */
export function browserlessCdpUrl(base: string, token: string, timeoutMs: number, trackingId: string): string {
  const url = new URL(base);
  if (url.protocol === "http:") url.protocol = "ws:";
  else if (url.protocol === "https:") url.protocol = "wss:";
  if (url.protocol !== "ws:" && url.protocol !== "wss:")
    throw new ProviderError("configuration_error", `BROWSERLESS_BASE_URL must be an http(s) or ws(s) URL, not ${url.protocol}.`);
  url.searchParams.set("token", token);
  url.searchParams.set("timeout", String(timeoutMs));
  url.searchParams.set("trackingId", trackingId);
  return url.toString();
}

/**
 * Browserless (https://www.browserless.io), hosted or self-run, by its CDP WebSocket URL; no SDK
 * is needed. Env: BROWSERLESS_TOKEN (required), BROWSERLESS_BASE_URL (optional; overrides the
 * region), BROWSERLESS_REGION (optional: sfo, lon, ams; default sfo), BROWSERLESS_MAX_SESSION_MS
 * (optional; the plan's longest session, default 60 s). Opening the WebSocket starts the browser,
 * closing it ends the session; the timeout query parameter is always set, because Browserless's
 * own default is only 30 s. Units are billed per started 30 s while the session is open.
 */
export function createBrowserlessProvider(options: CloudProviderOptions): BrowserProvider {
  const token = () => readEnv(options.env, "BROWSERLESS_TOKEN");
  const missing = PROVIDER_CREDENTIALS.browserless.missing;

  return {
    name: "browserless",
    kind: "cloud",
    missingConfiguration: () => (token() === undefined ? missing : null),
    async openSession(open: OpenSessionOptions): Promise<ProviderSession> {
      const secret = token();
      if (secret === undefined) throw new ProviderError("provider_unconfigured", missing);
      const base = readBase(options.env);
      const timeoutMs = browserlessTimeoutMs(open.budgetMs, options.sessionGraceMs, readMaxSession(options.env));
      const trackingId = `errand-${randomUUID().replace(/-/g, "").slice(0, 24)}`;
      const cdpUrl = browserlessCdpUrl(base, secret, timeoutMs, trackingId);
      return openCdpSession(
        {
          provider: "browserless",
          displayName: "Browserless",
          credentialEnv: "BROWSERLESS_TOKEN",
          secrets: [secret],
          // Nothing to call: the WebSocket upgrade is the create, and closing it is the release.
          create: () => Promise.resolve({ sessionId: trackingId, cdpUrl }),
        },
        open,
        options,
      );
    },
    programDialect: PROGRAM_DIALECTS.browserless ?? "browserless_function",
    async runProgram(run: ProgramRun): Promise<ProgramAnswer> {
      const secret = token();
      if (secret === undefined) throw new ProgramRunError("provider_unconfigured", missing, false);
      let url: URL;
      try {
        url = new URL("function", withTrailingSlash(browserlessHttpBase(options.env)));
      } catch (error) {
        throw ProgramRunError.from(
          error instanceof ProviderError ? error : new ProviderError("configuration_error", "BROWSERLESS_BASE_URL is not a URL."),
          false,
        );
      }
      const timeoutMs = browserlessTimeoutMs(run.budgetMs, options.sessionGraceMs, readMaxSession(options.env));
      const trackingId = `errand-${randomUUID().replace(/-/g, "").slice(0, 24)}`;
      url.searchParams.set("token", secret);
      url.searchParams.set("timeout", String(timeoutMs));
      url.searchParams.set("trackingId", trackingId);
      const answer = await sendProgram({
        url,
        headers: {},
        // The task's values go as the function's context, beside the code and never inside it.
        body: JSON.stringify({ code: run.code, context: { params: run.params } }),
        timeoutMs: timeoutMs + PROGRAM_ANSWER_GRACE_MS,
        signal: run.signal,
        maxAnswerBytes: run.maxAnswerBytes,
        beforeSend: run.beforeSend,
        failure: {
          provider: "Browserless",
          action: "running the task's program (/function)",
          credentialEnv: "BROWSERLESS_TOKEN",
          secrets: [secret, url.toString()],
        },
      });
      return { value: functionResult(answer), sessionId: trackingId };
    },
    shutdown: () => Promise.resolve(),
  };
}

function withTrailingSlash(url: URL): URL {
  const copy = new URL(url);
  if (!copy.pathname.endsWith("/")) copy.pathname += "/";
  return copy;
}

/**
 * The program's returned value from /function's answer: the open-source server sends the program's
 * `{ data, type }` object as JSON; a server that honours `type` sends `data` alone. Anything else is
 * handed on as it is, for the evidence schema to refuse.
 */
function functionResult(answer: unknown): unknown {
  if (answer !== null && typeof answer === "object" && !Array.isArray(answer)) {
    const keys = Object.keys(answer);
    const { data, type } = answer as { data?: unknown; type?: unknown };
    if (keys.length === 2 && type === "application/json" && data !== undefined) return data;
  }
  return answer;
}

/**
 * The server's HTTP base for its REST routes (/function): BROWSERLESS_BASE_URL or the region's
 * endpoint, a ws(s) scheme turned into http(s).
 */
export function browserlessHttpBase(env: NodeJS.ProcessEnv): URL {
  const url = new URL(readBase(env));
  if (url.protocol === "ws:") url.protocol = "http:";
  else if (url.protocol === "wss:") url.protocol = "https:";
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new ProviderError("configuration_error", `BROWSERLESS_BASE_URL must be an http(s) or ws(s) URL, not ${url.protocol}.`);
  return url;
}

/** BROWSERLESS_MAX_SESSION_MS, or the default: the longest session (and /function call) errand asks for. */
export function browserlessMaxSessionMs(env: NodeJS.ProcessEnv): number {
  return readMaxSession(env);
}

function readBase(env: NodeJS.ProcessEnv): string {
  const explicit = readEnv(env, "BROWSERLESS_BASE_URL");
  if (explicit !== undefined) {
    if (!URL.canParse(explicit)) throw new ProviderError("configuration_error", "BROWSERLESS_BASE_URL is not a URL.");
    return explicit;
  }
  const region = readEnv(env, "BROWSERLESS_REGION") ?? "sfo";
  if (!Object.hasOwn(BROWSERLESS_REGIONS, region))
    throw new ProviderError("configuration_error", `BROWSERLESS_REGION must be one of ${Object.keys(BROWSERLESS_REGIONS).join(", ")}, not "${region}".`);
  return BROWSERLESS_REGIONS[region as BrowserlessRegion];
}

function readMaxSession(env: NodeJS.ProcessEnv): number {
  const raw = readEnv(env, "BROWSERLESS_MAX_SESSION_MS");
  if (raw === undefined) return BROWSERLESS_DEFAULT_MAX_SESSION_MS;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1000)
    throw new ProviderError("configuration_error", `BROWSERLESS_MAX_SESSION_MS must be a whole number of milliseconds, at least 1000, not "${raw}".`);
  return value;
}
