/**
 * Which redirect URIs a client may register: ChatGPT's documented connector callbacks and the exact
 * extras the operator lists. Anything else (another host, http, a fragment, a look-alike path) is
 * refused at registration, so an authorization code can only ever travel to ChatGPT or to a place
 * the operator named.
 */
const CHATGPT_CALLBACK = /^https:\/\/chatgpt\.com\/connector\/oauth\/[A-Za-z0-9._~-]{1,200}$/;
const CHATGPT_LEGACY_CALLBACK = "https://chatgpt.com/connector_platform_oauth_redirect";

export function isAllowedRedirect(uri: string, extras: readonly string[]): boolean {
  if (uri.length > 2048) return false;
  if (extras.includes(uri)) return true;
  return uri === CHATGPT_LEGACY_CALLBACK || CHATGPT_CALLBACK.test(uri);
}

/** Adds parameters to a redirect URI, keeping any query it already has. */
export function withQuery(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, value);
  return url.toString();
}
