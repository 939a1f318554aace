import { ProviderError } from "./providerTypes.js";
import { parseRetryAfter } from "./parseRetryAfter.js";
import { scrubSecrets } from "./scrubSecrets.js";
import { errorMessage } from "../errors/errorMessage.js";

/** What a failure message needs to say who failed, doing what, and what the operator can check. */
export interface FailureContext {
  /** The provider's display name ("Kernel"). */
  provider: string;
  /** What errand was doing, as a gerund phrase ("creating a browser"). */
  action: string;
  /** The environment variable holding the credential, named in auth failures. */
  credentialEnv: string;
  /** Credentials and CDP URLs that must not appear in the message. */
  secrets: readonly (string | undefined)[];
  /** The time errand allowed for the call, named in timeout messages (ms). */
  timeoutMs?: number;
}

/** The longest piece of a provider's own message carried into ours. */
const MAX_DETAIL = 200;

/**
 * Maps anything a provider SDK, a fetch or Playwright's CDP connect can throw to errand's closed
 * set of provider failures:
 * - 401/403 → provider_auth_failed (a 403 that speaks of concurrency → provider_capacity);
 * - 429 → provider_capacity, with Retry-After when the provider sent it;
 * - 400/404/422 → configuration_error (errand's request or settings are wrong; retrying cannot help);
 * - 408, 409, other 4xx, 5xx, timeouts, refused or dropped connections → provider_unavailable.
 * The message is errand's own words; the provider's (its error body, a connection error) go to
 * `quoted`, scrubbed of every secret and of any WebSocket URL.
 */
export function providerErrorFrom(error: unknown, context: FailureContext): ProviderError {
  if (error instanceof ProviderError) return error;
  const { provider, action } = context;
  const scrub = (text: string) => scrubSecrets(text, context.secrets);
  const failure = classify(error);

  if (failure.kind === "http") {
    const { status } = failure;
    // The provider's words go to `quoted` (error.detail, wrapped), not into errand's message.
    const quoted = clip(scrub(failure.detail));
    const said = `HTTP ${status}`;
    const mentionsCapacity = /concurren|too many|limit/i.test(failure.detail);
    if (status === 429 || ((status === 403 || status === 409) && /concurren/i.test(failure.detail)) || (status === 409 && mentionsCapacity)) {
      const retryAfterSeconds = failure.retryAfterSeconds;
      const wait =
        retryAfterSeconds === undefined ? "it gave no Retry-After, so wait before trying it again" : `it asked for ${retryAfterSeconds} s before the next try`;
      return new ProviderError("provider_capacity", `${provider} is at its concurrency or rate limit (${said}) while ${action}; ${wait}.`, {
        status,
        quoted,
        ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
      });
    }
    if (status === 401 || status === 403) {
      return new ProviderError(
        "provider_auth_failed",
        `${provider} refused errand's credential (${said}) while ${action}; check ${context.credentialEnv} and the account's plan or spending cap.`,
        { status, quoted },
      );
    }
    if (status === 400 || status === 404 || status === 422) {
      return new ProviderError(
        "configuration_error",
        `${provider} rejected errand's request (${said}) while ${action}; check the provider settings errand was given.`,
        { status, quoted },
      );
    }
    return new ProviderError("provider_unavailable", `${provider} failed (${said}) while ${action}.`, { status, quoted });
  }
  if (failure.kind === "timeout") {
    const within = context.timeoutMs === undefined ? "in time" : `within ${context.timeoutMs} ms`;
    return new ProviderError("provider_unavailable", `${provider} did not answer ${within} while ${action}.`);
  }
  if (failure.kind === "aborted") {
    return new ProviderError("provider_unavailable", `errand stopped waiting for ${provider} while ${action} (the attempt was cancelled or ran out of time).`);
  }
  return new ProviderError("provider_unavailable", `${provider} could not be reached while ${action}.`, { quoted: clip(scrub(failure.detail)) });
}

type Failure =
  | { kind: "http"; status: number; detail: string; retryAfterSeconds?: number }
  | { kind: "timeout" }
  | { kind: "aborted" }
  | { kind: "network"; detail: string };

function classify(error: unknown): Failure {
  const names = classNames(error);
  if (names.includes("APIConnectionTimeoutError")) return { kind: "timeout" };
  if (names.includes("APIUserAbortError") || names.includes("AbortError")) return { kind: "aborted" };
  if (names.includes("TimeoutError")) return { kind: "timeout" };
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status === "number" && status >= 100 && status <= 599) {
    const retryAfterSeconds = parseRetryAfter((error as { headers?: unknown }).headers);
    return { kind: "http", status, detail: sdkDetail(error, status), ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }) };
  }
  const message = errorMessage(error);
  // Playwright reports a refused WebSocket upgrade as "WebSocket error: <url> <status> <reason>\n<body>".
  const upgrade = /WebSocket error: \S+ (\d{3}) ([^\r\n]*)\r?(?:\n([^\r\n]*))?/.exec(message);
  if (upgrade !== null) {
    const reason = (upgrade[2] ?? "").trim();
    const body = (upgrade[3] ?? "").trim();
    const detail = body === "" || body.startsWith("Call log:") ? reason : `${reason} — ${body}`;
    return { kind: "http", status: Number(upgrade[1]), detail };
  }
  if (/Timeout \d+ms exceeded/.test(message)) return { kind: "timeout" };
  return { kind: "network", detail: firstLine(message) };
}

/** The provider's own words: the JSON body's message when there is one, else the SDK's text. */
function sdkDetail(error: unknown, status: number): string {
  const body = (error as { error?: unknown }).error;
  if (body !== null && typeof body === "object") {
    const message = (body as { message?: unknown }).message;
    const code = (body as { code?: unknown }).code;
    if (typeof message === "string") return typeof code === "string" && code !== "" ? `${message} (${code})` : message;
  }
  if (typeof body === "string") return body;
  const text = error instanceof Error ? firstLine(error.message) : "";
  return text.replace(new RegExp(`^${status}\\s*`), "").replace(/^status code \(no body\)$/, "");
}

function classNames(error: unknown): string[] {
  const names: string[] = [];
  if (error instanceof Error && error.name !== "Error") names.push(error.name);
  let proto: unknown = error !== null && typeof error === "object" ? Object.getPrototypeOf(error) : null;
  while (proto !== null && proto !== Object.prototype) {
    const ctor = (proto as { constructor?: { name?: unknown } }).constructor;
    if (typeof ctor?.name === "string") names.push(ctor.name);
    proto = Object.getPrototypeOf(proto);
  }
  return names;
}

function firstLine(text: string): string {
  return (text.split("\n")[0] ?? text).replace(/^[a-zA-Z]+\.[a-zA-Z]+: /, "").trim();
}

function clip(text: string): string {
  return text.length > MAX_DETAIL ? `${text.slice(0, MAX_DETAIL)}…` : text;
}
