import type { ProviderErrorCode } from "./providerTypes.js";
import { ProviderError } from "./providerTypes.js";

/** Which runner a provider's program is written for: the template set errand generates for it. */
export type ProgramDialect = "browserless_function" | "kernel_execute";

/** One program sent whole to a provider's own runner: errand's fixed code and the task's values as data. */
export interface ProgramRun {
  code: string;
  /** The task's values as JSON data; never spliced into `code` by the transport. */
  params: unknown;
  /** Milliseconds the program may take (the task's budget); the provider's own timeout is set from it. */
  budgetMs: number;
  signal: AbortSignal;
  /** The largest answer errand reads (bytes): the most the program's evidence can weigh. */
  maxAnswerBytes: number;
  /**
   * Awaited right before the program itself is sent, after anything the provider needs first (a
   * browser created): a write's mutation boundary is recorded there. When it throws, nothing is
   * sent and its error propagates as it is.
   */
  beforeSend: () => Promise<void>;
}

/** What the provider's runner answered: the program's returned value, not yet validated. */
export interface ProgramAnswer {
  /** Untrusted until the program's evidence schema accepts it. */
  value: unknown;
  /** The provider's id for the session the program ran in, when it has one. */
  sessionId?: string;
}

/**
 * A program that did not come back with an answer. `mayHaveRun` is false only when the provider
 * provably never started it (no credential, a refused connection, a 401/403/429/400 before the run):
 * anything else (a timeout, a reset, a 5xx, an answer errand could not read) may have run some or
 * all of its steps, so a write's receipt must say UNCERTAIN and the write is never sent again.
 */
export class ProgramRunError extends ProviderError {
  constructor(
    code: ProviderErrorCode,
    message: string,
    readonly mayHaveRun: boolean,
    details: { retryAfterSeconds?: number; status?: number; quoted?: string } = {},
  ) {
    super(code, message, details);
    this.name = "ProgramRunError";
  }

  static from(error: ProviderError, mayHaveRun: boolean): ProgramRunError {
    if (error instanceof ProgramRunError) return error;
    return new ProgramRunError(error.code, error.message, mayHaveRun, {
      ...(error.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: error.retryAfterSeconds }),
      ...(error.status === undefined ? {} : { status: error.status }),
      ...(error.quoted === undefined ? {} : { quoted: error.quoted }),
    });
  }
}
