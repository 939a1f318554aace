import { ErrandError } from "../../../errors/errandError.js";
/** An OAuth error answered as RFC 6749 §5.2 JSON (`error`, `error_description`). */
export class OAuthError extends ErrandError {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
    readonly headers: Record<string, string> = {},
  ) {
    // The wire answer is RFC 6749's error; errand's own code is the nearest of its table.
    super(status === 401 ? "unauthorized" : status === 429 ? "rate_limited" : status === 413 ? "request_too_large" : "invalid_type", description);
    this.name = "OAuthError";
  }
}

export function oauthErrorResponse(error: OAuthError): Response {
  return new Response(JSON.stringify({ error: error.error, error_description: error.description }), {
    status: error.status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", pragma: "no-cache", ...error.headers },
  });
}
