import type { Context } from "hono";
import type { ClientAuthMethod, NewOAuthClient } from "../../../store/AccessStore.js";
import type { AppDeps } from "../httpDeps.js";
import type { FailureLimiter } from "../failureLimiter.js";
import { readBoundedBody } from "../readBody.js";
import { randomId } from "../secretHasher.js";
import { OAuthError } from "./oauthError.js";
import { isAllowedRedirect } from "./redirectPolicy.js";
import { grantedScopes } from "./scopes.js";

const AUTH_METHODS: readonly ClientAuthMethod[] = ["none", "client_secret_post", "client_secret_basic"];
const MAX_REDIRECT_URIS = 10;
const MAX_NAME_CHARS = 200;

/**
 * RFC 7591 dynamic client registration. Open to anyone, which is safe because a client can do
 * nothing until the owner approves it on the consent page; what it may register is narrow:
 * redirect URIs from the allowlist only, the code flow only, and no secret that expires (ChatGPT
 * keeps its registration for good). Confidential clients get a secret, shown once, stored hashed.
 */
export async function registerClient(c: Context, deps: AppDeps, limiter: FailureLimiter): Promise<Response> {
  const address = deps.clientAddress(c);
  const wait = limiter.retryAfterSeconds(address);
  if (wait > 0)
    throw new OAuthError("temporarily_unavailable", "Too many registrations from this address; try again later.", 429, { "retry-after": String(wait) });
  const body = await readBoundedBody(c.req.raw, deps.settings.limits.formBytes);
  if (!body.ok) throw new OAuthError("invalid_client_metadata", "The registration document is too large.", 413);
  let doc: unknown;
  try {
    doc = JSON.parse(body.text);
  } catch {
    throw new OAuthError("invalid_client_metadata", "The registration body must be a JSON object.");
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc))
    throw new OAuthError("invalid_client_metadata", "The registration body must be a JSON object.");
  const meta = doc as Record<string, unknown>;

  const uris = meta["redirect_uris"];
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > MAX_REDIRECT_URIS || !uris.every((u): u is string => typeof u === "string")) {
    throw new OAuthError("invalid_redirect_uri", `redirect_uris must list 1 to ${MAX_REDIRECT_URIS} URLs.`);
  }
  const refused = uris.find((uri) => !isAllowedRedirect(uri, deps.settings.extraRedirects));
  if (refused !== undefined) {
    throw new OAuthError(
      "invalid_redirect_uri",
      "This server only redirects to ChatGPT's connector callbacks (https://chatgpt.com/connector/oauth/... or /connector_platform_oauth_redirect) and to URLs its operator listed.",
    );
  }
  const method = meta["token_endpoint_auth_method"] ?? "client_secret_basic";
  if (typeof method !== "string" || !(AUTH_METHODS as readonly string[]).includes(method)) {
    throw new OAuthError("invalid_client_metadata", `token_endpoint_auth_method must be one of ${AUTH_METHODS.join(", ")}.`);
  }
  const grants = meta["grant_types"] ?? ["authorization_code", "refresh_token"];
  if (!Array.isArray(grants) || !grants.every((g) => g === "authorization_code" || g === "refresh_token") || !grants.includes("authorization_code")) {
    throw new OAuthError("invalid_client_metadata", "grant_types may only be authorization_code and refresh_token.");
  }
  const responses = meta["response_types"] ?? ["code"];
  if (!Array.isArray(responses) || !responses.every((r) => r === "code"))
    throw new OAuthError("invalid_client_metadata", 'response_types may only be ["code"].');
  const rawName = meta["client_name"];
  const clientName = typeof rawName === "string" && rawName.trim() !== "" ? rawName.trim().slice(0, MAX_NAME_CHARS) : "unnamed client";
  const scope = grantedScopes(typeof meta["scope"] === "string" ? meta["scope"] : "tasks offline_access").join(" ");

  const authMethod = method as ClientAuthMethod;
  const clientId = `errand_client_${randomId(12)}`;
  const secret = authMethod === "none" ? undefined : deps.hasher.mint("clientSecret");
  const now = Math.floor((deps.clock ?? Date.now)() / 1000);
  const response: Record<string, unknown> = {
    client_id: clientId,
    client_id_issued_at: now,
    client_name: clientName,
    redirect_uris: uris,
    token_endpoint_auth_method: authMethod,
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    scope,
  };
  const record: NewOAuthClient = {
    clientId,
    secretHash: secret === undefined ? null : deps.hasher.hash("clientSecret", secret),
    authMethod,
    clientName,
    redirectUris: uris,
    metadata: response,
  };
  limiter.record(address);
  const result = await deps.access.registerClient(record, deps.settings.maxClients);
  if (result.kind === "full")
    throw new OAuthError("temporarily_unavailable", "This server has no room for another client; the owner can remove old ones.", 503);
  deps.logger.info("OAuth client registered", { clientId, clientName, authMethod, evicted: result.evicted });
  return new Response(JSON.stringify(secret === undefined ? response : { ...response, client_secret: secret, client_secret_expires_at: 0 }), {
    status: 201,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
  });
}
