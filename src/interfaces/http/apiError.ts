import type { ErrorCode } from "../../errors/errorCodes.js";
import type { Problem } from "../../errors/result.js";
import type { Handle } from "../../operations/handle.js";
import { SUBMIT_REFUSAL_CODES } from "../../operations/submitRefusal.js";
import { ErrandError } from "../../errors/errandError.js";

/** HTTP status for each errand error code a REST caller can receive. */
export function statusForCode(code: ErrorCode): 400 | 401 | 403 | 404 | 409 | 413 | 422 | 429 | 500 | 503 | 507 {
  // A valid task refused at submit because it is known to fail: like a missing approval, 422.
  if (SUBMIT_REFUSAL_CODES.has(code)) return 422;
  switch (code) {
    case "unauthorized":
      return 401;
    case "forbidden_host":
    case "forbidden_origin":
      return 403;
    case "approval_required":
    case "secret_approval_required":
      return 422;
    case "operation_not_found":
    case "artifact_not_found":
    case "not_found":
      return 404;
    case "identity_mismatch":
      return 409;
    case "request_too_large":
      return 413;
    case "rate_limited":
      return 429;
    case "journal_quota_exceeded":
      return 507;
    case "store_busy":
    case "store_unavailable":
    case "configuration_error":
      return 503;
    case "journal_tampered":
    case "artifact_mismatch":
    case "internal_error":
    case "store_schema_too_new":
    case "key_error":
      return 500;
    default:
      return 400;
  }
}

/** The one typed error of the HTTP layer: an errand code, a message for whoever must act, and details. */
export class ApiError extends ErrandError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly details: { problems?: Problem[]; handle?: Handle; headers?: Record<string, string> } = {},
  ) {
    super(code, message);
    this.name = "ApiError";
  }

  get status(): number {
    return statusForCode(this.code);
  }

  /** The wire body: `{"error":{"code","message","problems"?,"handle"?}}`; never a stack or a path on disk. */
  toBody(): { error: Record<string, unknown> } {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.details.problems === undefined ? {} : { problems: this.details.problems }),
        ...(this.details.handle === undefined ? {} : { handle: this.details.handle }),
      },
    };
  }
}

export function errorResponse(error: ApiError): Response {
  return new Response(JSON.stringify(error.toBody()), {
    status: error.status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...error.details.headers },
  });
}
