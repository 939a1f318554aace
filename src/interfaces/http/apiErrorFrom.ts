import { ErrandError } from "../../errors/errandError.js";
import { ERROR_CODES } from "../../errors/errorCodes.js";
import { ApiError, statusForCode } from "./apiError.js";

/**
 * What an HTTP or MCP caller is told about anything a handler threw, from its code alone
 * (statusForCode): an ApiError as it is; another of errand's errors with its own code, so a locked
 * or unreachable database is a 503 store_busy / store_unavailable rather than a 500. A server-side
 * state (5xx) is described by the code's own sentence, since its message may name files or hosts
 * only the operator should see; anything else (a bug) is null, for the caller's internal_error.
 */
export function apiErrorFrom(thrown: unknown): ApiError | null {
  if (thrown instanceof ApiError) return thrown;
  if (!(thrown instanceof ErrandError)) return null;
  if (statusForCode(thrown.code) >= 500) return new ApiError(thrown.code, `${ERROR_CODES[thrown.code]} The operator's log has the details.`);
  return new ApiError(thrown.code, thrown.message);
}
