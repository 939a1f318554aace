import type { ErrorCode } from "./errorCodes.js";

/**
 * The base of errand's own errors: a code from the closed set (errorCodes.ts) and a message
 * addressed to whoever must act. Boundaries turn it into an exit code (the CLI's one table,
 * exitForFailure) or an HTTP status (statusForCode) from its code alone.
 */
export class ErrandError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
