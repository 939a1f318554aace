import type { OAuthClientRecord } from "../../../store/AccessStore.js";
import type { AppDeps } from "../httpDeps.js";
import { isClientIdUrl } from "./clientMetadataDocument.js";
import { OAuthError } from "./oauthError.js";

/**
 * Authenticates the client at /token and /revoke: public clients by client_id alone (PKCE protects
 * their codes), confidential ones by their secret in the form (client_secret_post) or in HTTP Basic
 * (client_secret_basic), compared as hashes in constant time.
 */
export async function authenticateClient(deps: AppDeps, form: URLSearchParams, authorization: string | undefined): Promise<OAuthClientRecord> {
  let clientId = form.get("client_id") ?? undefined;
  let secret = form.get("client_secret") ?? undefined;
  let usedBasic = false;
  if (authorization !== undefined && /^basic /i.test(authorization)) {
    let decoded: string;
    try {
      decoded = atob(authorization.slice(6).trim());
    } catch {
      throw invalidClient();
    }
    const colon = decoded.indexOf(":");
    if (colon < 0) throw invalidClient();
    const basicId = safeDecode(decoded.slice(0, colon));
    if (clientId !== undefined && clientId !== basicId) throw invalidClient();
    clientId = basicId;
    secret = safeDecode(decoded.slice(colon + 1));
    usedBasic = true;
  }
  if (clientId === undefined || clientId === "") throw invalidClient();
  // A metadata-document client is public (its document cannot hold a secret): its codes and refresh
  // tokens are bound to its client_id and its codes to PKCE, so nothing is fetched here.
  if (deps.clientMetadata !== undefined && isClientIdUrl(clientId)) {
    if (secret !== undefined) throw invalidClient();
    return { clientId, secretHash: null, authMethod: "none", clientName: clientId, redirectUris: [], metadata: {}, createdMs: 0, lastGrantMs: null };
  }
  const client = await deps.access.readClient(clientId);
  if (client === undefined) throw invalidClient();
  if (client.authMethod === "none") return client;
  if (secret === undefined || client.secretHash === null) throw invalidClient();
  if (client.authMethod === "client_secret_basic" && !usedBasic && form.get("client_secret") === null) throw invalidClient();
  if (!deps.hasher.equal(client.secretHash, deps.hasher.hash("clientSecret", secret))) throw invalidClient();
  return client;
}

function invalidClient(): OAuthError {
  return new OAuthError("invalid_client", "Client authentication failed.", 401, { "www-authenticate": 'Basic realm="errand"' });
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, " "));
  } catch {
    return text;
  }
}
