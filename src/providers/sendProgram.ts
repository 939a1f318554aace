import { SECOND } from "../config/units.js";
import { errorMessage } from "../errors/errorMessage.js";
import type { FailureContext } from "./providerErrorFrom.js";
import { providerErrorFrom } from "./providerErrorFrom.js";
import { ProgramRunError } from "./programRun.js";
import { BodyTooLarge, readBoundedText } from "./readBoundedText.js";

/** How much of a refusal's body errand reads to quote it. */
const REFUSAL_BODY_BYTES = 4 * 1024;
/** Time beyond the provider's own timeout for its answer to arrive (ms). */
export const PROGRAM_ANSWER_GRACE_MS = 5 * SECOND;
/**
 * Statuses that say the provider refused the request before it ran anything: a credential it
 * rejects, a route it does not have, a full queue or rate limit. Every other status (a 400 or 500
 * included: /function answers those when the code threw mid-way) may come after some steps ran.
 */
const REFUSED_BEFORE_RUN = new Set([401, 403, 404, 429]);
/** Connection errors that happen before a single byte of the request is sent. */
const NEVER_SENT = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ENETUNREACH", "EHOSTUNREACH", "ERR_INVALID_URL"]);

export interface ProgramPost {
  url: URL;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds errand waits for the whole answer. */
  timeoutMs: number;
  signal: AbortSignal;
  /** The largest answer errand reads (bytes); a longer one is a provider failure. */
  maxAnswerBytes: number;
  /** Who errand was talking to and which secrets never appear in a message. */
  failure: FailureContext;
  /** Awaited before the request leaves (ProgramRun.beforeSend); its error propagates and nothing is sent. */
  beforeSend: () => Promise<void>;
}

/**
 * POSTs one program to a provider's runner and answers its body parsed as JSON, or throws a
 * ProgramRunError that says whether the program may have run. One request, never repeated: a
 * program that may have crossed a write's boundary is not sent twice by anyone.
 */
export async function sendProgram(post: ProgramPost): Promise<unknown> {
  await post.beforeSend();
  const context = { ...post.failure, timeoutMs: post.timeoutMs };
  // One controller with errand's own timer: the whole exchange (headers and body) ends by timeoutMs.
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException("The program's answer did not come in time.", "TimeoutError")), post.timeoutMs);
  const onAbort = () => controller.abort(post.signal.reason);
  if (post.signal.aborted) onAbort();
  else post.signal.addEventListener("abort", onAbort, { once: true });
  try {
    return await exchange(post, controller.signal, context);
  } finally {
    clearTimeout(timer);
    post.signal.removeEventListener("abort", onAbort);
  }
}

async function exchange(post: ProgramPost, signal: AbortSignal, context: FailureContext): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(post.url, {
      method: "POST",
      headers: { "content-type": "application/json", ...post.headers },
      body: post.body,
      signal,
      redirect: "error",
    });
  } catch (error) {
    throw ProgramRunError.from(providerErrorFrom(error, context), !neverSent(error));
  }
  if (response.status !== 200) {
    const text = await readBoundedText(response, REFUSAL_BODY_BYTES).catch(() => "");
    const failed = providerErrorFrom({ status: response.status, headers: response.headers, error: { message: text.trim() } }, context);
    throw ProgramRunError.from(failed, !REFUSED_BEFORE_RUN.has(response.status));
  }
  let text: string;
  try {
    text = await readBoundedText(response, post.maxAnswerBytes);
  } catch (error) {
    if (error instanceof BodyTooLarge) {
      throw new ProgramRunError(
        "provider_unavailable",
        `${post.failure.provider}'s answer to the program passed ${post.maxAnswerBytes} bytes, more than its evidence can take; errand stopped reading it.`,
        true,
      );
    }
    throw ProgramRunError.from(providerErrorFrom(error, context), true);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ProgramRunError("provider_unavailable", `${post.failure.provider} answered the program with a body that is not JSON.`, true, {
      quoted: text.slice(0, 200),
    });
  }
}

function neverSent(error: unknown): boolean {
  let cause: unknown = error;
  for (let depth = 0; depth < 4 && cause !== null && typeof cause === "object"; depth += 1) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === "string" && NEVER_SENT.has(code)) return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return /ECONNREFUSED|ENOTFOUND/.test(errorMessage(error));
}
