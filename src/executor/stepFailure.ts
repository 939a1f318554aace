import type { ErrorCode } from "../errors/errorCodes.js";
import { errorMessage } from "../errors/errorMessage.js";
import { ErrandError } from "../errors/errandError.js";

/** A step that could not be done, with the code the receipt will carry. Thrown inside the executor only. */
export class StepFailure extends ErrandError {
  constructor(
    code: ErrorCode,
    message: string,
    /** The browser's words, which may quote the page; reported wrapped as untrusted, apart from errand's message. */
    readonly detail?: string,
  ) {
    super(code, message);
  }
}

/** Playwright messages carry a call log after the first line; a receipt needs only the first line. */
export function firstLine(error: unknown): string {
  const text = errorMessage(error);
  return (text.split("\n")[0] ?? text).replace(/^[a-zA-Z]+\.[a-zA-Z]+: /, "").trim();
}

export function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === "TimeoutError";
}
