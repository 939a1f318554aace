import { randomUUID } from "node:crypto";
import type { CloudProviderOptions } from "./cloudProviderOptions.js";
import { readEnv } from "./cloudProviderOptions.js";
import { openCdpSession } from "./openCdpSession.js";
import type { BrowserProvider, OpenSessionOptions, ProviderSession } from "./providerTypes.js";
import { ProviderError } from "./providerTypes.js";
import { PROVIDER_CREDENTIALS } from "./providerCredentials.js";
import { providerErrorFrom } from "./providerErrorFrom.js";
import type { ProgramAnswer, ProgramRun } from "./programRun.js";
import { ProgramRunError } from "./programRun.js";
import { PROGRAM_ANSWER_GRACE_MS, sendProgram } from "./sendProgram.js";
import { DEFAULT_START_TIMEOUT_MS } from "./cloudProviderOptions.js";

/** Kernel's documented bounds for timeout_seconds (its inactivity timeout). */
export const KERNEL_MIN_TIMEOUT_SECONDS = 10;
export const KERNEL_MAX_TIMEOUT_SECONDS = 259_200;
export const KERNEL_DEFAULT_BASE_URL = "https://api.onkernel.com/";

export interface KernelProviderOptions extends CloudProviderOptions {
  /** Headless browsers cost an eighth of headful ones and have no live view. Default true. */
  headless?: boolean;
}

/** The attempt budget as Kernel's timeout_seconds: whole seconds rounded up, held to 10..259200. */
export function kernelTimeoutSeconds(budgetMs: number): number {
  const seconds = Math.ceil(Math.max(0, budgetMs) / 1000);
  return Math.min(KERNEL_MAX_TIMEOUT_SECONDS, Math.max(KERNEL_MIN_TIMEOUT_SECONDS, seconds));
}

/**
 * Kernel (https://www.kernel.sh) through @onkernel/sdk. Env: KERNEL_API_KEY (required),
 * KERNEL_BASE_URL (optional, for a private endpoint or an emulator). Each attempt creates one
 * browser (headless by default, timeout_seconds from the budget, a unique name so an unclear
 * create can be found and deleted), connects over CDP, drives the default context, and always
 * deletes the browser: closing the CDP connection alone would leave it in standby, holding a
 * concurrency slot until its timeout.
 */
export function createKernelProvider(options: KernelProviderOptions): BrowserProvider {
  const headless = options.headless ?? true;
  const apiKey = () => readEnv(options.env, "KERNEL_API_KEY");

  return {
    name: "kernel",
    kind: "cloud",
    missingConfiguration: () => (apiKey() === undefined ? PROVIDER_CREDENTIALS.kernel.missing : null),
    async openSession(open: OpenSessionOptions): Promise<ProviderSession> {
      const key = apiKey();
      if (key === undefined) throw new ProviderError("provider_unconfigured", PROVIDER_CREDENTIALS.kernel.missing);
      // The SDK loads when a session opens, not with errand run / runner / serve (it costs each start 0.1-0.5 s).
      const { default: Kernel } = await import("@onkernel/sdk");
      const client = new Kernel({ apiKey: key, baseURL: readEnv(options.env, "KERNEL_BASE_URL") ?? KERNEL_DEFAULT_BASE_URL, maxRetries: 0, logLevel: "off" });
      const name = `errand-${randomUUID()}`;
      const deleteBrowser = async (idOrName: string, signal: AbortSignal, maxRetries: number): Promise<boolean> => {
        try {
          await client.browsers.deleteByID(idOrName, { signal, maxRetries });
          return true;
        } catch (error) {
          if ((error as { status?: unknown }).status === 404) return false;
          throw error;
        }
      };
      return openCdpSession(
        {
          provider: "kernel",
          displayName: "Kernel",
          credentialEnv: "KERNEL_API_KEY",
          secrets: [key],
          async create({ timeoutMs, signal }) {
            const browser = await client.browsers.create(
              { headless, stealth: false, timeout_seconds: kernelTimeoutSeconds(open.budgetMs), name, tags: { "created-by": "errand" } },
              { maxRetries: 0, timeout: timeoutMs, signal },
            );
            return { sessionId: browser.session_id, cdpUrl: browser.cdp_ws_url };
          },
          async release(sessionId, signal) {
            await deleteBrowser(sessionId, signal, 2);
          },
          async sweepAfterUnclearCreate(signal) {
            return (await deleteBrowser(name, signal, 1)) ? 1 : 0;
          },
        },
        open,
        options,
      );
    },
    programDialect: "kernel_execute",
    async runProgram(run: ProgramRun): Promise<ProgramAnswer> {
      const key = apiKey();
      if (key === undefined) throw new ProgramRunError("provider_unconfigured", PROVIDER_CREDENTIALS.kernel.missing, false);
      const { default: Kernel } = await import("@onkernel/sdk");
      const base = readEnv(options.env, "KERNEL_BASE_URL") ?? KERNEL_DEFAULT_BASE_URL;
      const client = new Kernel({ apiKey: key, baseURL: base, maxRetries: 0, logLevel: "off" });
      const failure = { provider: "Kernel", credentialEnv: "KERNEL_API_KEY", secrets: [key] };
      const name = `errand-${randomUUID()}`;
      let sessionId: string;
      try {
        const created = await client.browsers.create(
          { headless, stealth: false, timeout_seconds: kernelTimeoutSeconds(run.budgetMs), name, tags: { "created-by": "errand" } },
          { maxRetries: 0, timeout: options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS, signal: run.signal },
        );
        sessionId = created.session_id;
      } catch (error) {
        // No program was sent yet: whatever the create did, nothing of the task ran. An unclear create is swept by its name.
        await client.browsers.deleteByID(name, { maxRetries: 1 }).catch(() => undefined);
        throw ProgramRunError.from(providerErrorFrom(error, { ...failure, action: "creating a browser for the task's program" }), false);
      }
      try {
        const url = new URL(`browsers/${encodeURIComponent(sessionId)}/playwright/execute`, base.endsWith("/") ? base : `${base}/`);
        const timeoutSec = Math.max(1, Math.ceil(run.budgetMs / 1000));
        const answer = await sendProgram({
          url,
          headers: { authorization: `Bearer ${key}` },
          // Kernel takes only code: the task's values are inside it, in the base64 literal the generator wrote.
          body: JSON.stringify({ code: run.code, timeout_sec: timeoutSec }),
          timeoutMs: timeoutSec * 1000 + PROGRAM_ANSWER_GRACE_MS,
          signal: run.signal,
          maxAnswerBytes: run.maxAnswerBytes,
          beforeSend: run.beforeSend,
          failure: { ...failure, action: "running the task's program (playwright/execute)" },
        });
        return { value: executeResult(answer), sessionId };
      } finally {
        // Always deleted: a browser left behind would hold a concurrency slot until its timeout.
        await client.browsers.deleteByID(sessionId, { maxRetries: 2, timeout: options.cleanupBoundMs ?? 5_000 }).catch(() => undefined);
      }
    },
    shutdown: () => Promise.resolve(),
  };
}

/**
 * The program's result from Kernel's answer ({ success, result, error, stdout, stderr }): a
 * program that threw (success false) may have run some of its steps, so it is a failure that may
 * have run; anything else not shaped like that is handed on for the evidence schema to refuse.
 */
function executeResult(answer: unknown): unknown {
  if (answer === null || typeof answer !== "object" || Array.isArray(answer)) return answer;
  const { success, result, error } = answer as { success?: unknown; result?: unknown; error?: unknown };
  if (success === false) {
    throw new ProgramRunError("provider_unavailable", "Kernel ran the task's program and it threw before it returned its evidence.", true, {
      quoted: typeof error === "string" ? error.slice(0, 200) : "",
    });
  }
  return success === true ? result : answer;
}
