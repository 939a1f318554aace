import type { ErrorCode } from "./errorCodes.js";

/** One problem found in input or policy, addressed to whoever must fix it. */
export interface Problem {
  code: ErrorCode;
  /** JSON Pointer (RFC 6901) to the offending field, "" for the whole document. */
  path: string;
  message: string;
}

/** Validators return results; only the edges of the program throw. */
export type Result<T> = { ok: true; value: T } | { ok: false; errors: Problem[] };

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

export function failed<T>(errors: Problem[]): Result<T> {
  return { ok: false, errors };
}
