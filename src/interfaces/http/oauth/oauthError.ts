/** An OAuth error answered as RFC 6749 §5.2 JSON (`error`, `error_description`). */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
    this.name = "OAuthError";
  }
}

export function oauthErrorResponse(error: OAuthError): Response {
  return new Response(JSON.stringify({ error: error.error, error_description: error.description }), {
    status: error.status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", pragma: "no-cache", ...error.headers },
  });
}
