import type { OAuthClientRecord } from "../../../store/AccessStore.js";
import { isAllowedRedirect } from "./redirectPolicy.js";

const MAX_REDIRECT_URIS = 10;
const MAX_NAME_CHARS = 200;
const MAX_CLIENT_ID_CHARS = 2048;
/** Authentication methods that rest on a shared secret: a metadata document is public, so none of them can hold. */
const SECRET_METHODS = ["client_secret_post", "client_secret_basic", "client_secret_jwt"];

/**
 * Whether a client_id is a Client ID Metadata Document URL (draft-ietf-oauth-client-id-metadata-document
 * §3): https, a path, no fragment, no user name or password, no "." or ".." path segment. Anything
 * else is an ordinary (registered) client id and is looked up in the store.
 */
export function isClientIdUrl(clientId: string): boolean {
  return clientId.startsWith("https://") && clientIdUrlProblem(clientId) === null;
}

/** Why a client_id that starts with https:// is not an acceptable document URL, or null. */
export function clientIdUrlProblem(clientId: string): string | null {
  if (clientId.length > MAX_CLIENT_ID_CHARS) return `is longer than ${MAX_CLIENT_ID_CHARS} characters`;
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return "is not a URL";
  }
  if (url.protocol !== "https:") return "must use https";
  if (url.username !== "" || url.password !== "") return "must not carry a user name or password";
  if (clientId.includes("#")) return "must not carry a fragment";
  if (url.pathname === "/") return "must have a path";
  // The URL must be the one the client wrote (WHATWG parsing removes "." and ".." segments, so a
  // client_id with one differs from its parse): otherwise it would be compared against the document
  // under one name and fetched under another.
  if (url.href !== clientId) return 'must be written in normalized form, with no "." or ".." path segment';
  return null;
}

export type ClientMetadataVerdict = { ok: true; client: OAuthClientRecord } | { ok: false; reason: string };

/**
 * Reads a fetched metadata document for `clientId` (its URL): a JSON object whose client_id is the
 * URL exactly, whose redirect_uris (1 to 10) each pass errand's redirect policy, that asks for no
 * shared secret (public client, PKCE), and only the code and refresh grants. The client_name is kept
 * as the client wrote it: it is self-declared, and only the URL's host is verified.
 */
export function readClientMetadataDocument(clientId: string, text: string, extraRedirects: readonly string[]): ClientMetadataVerdict {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return { ok: false, reason: "the document is not JSON" };
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) return { ok: false, reason: "the document is not a JSON object" };
  const meta = doc as Record<string, unknown>;
  if (meta["client_id"] !== clientId) return { ok: false, reason: "the document's client_id is not exactly the URL it was fetched from" };
  const uris = meta["redirect_uris"];
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > MAX_REDIRECT_URIS || !uris.every((u): u is string => typeof u === "string")) {
    return { ok: false, reason: `redirect_uris must list 1 to ${MAX_REDIRECT_URIS} URLs` };
  }
  const refused = uris.find((uri) => !isAllowedRedirect(uri, extraRedirects));
  if (refused !== undefined)
    return { ok: false, reason: "a redirect_uri is not one errand sends codes to (ChatGPT's connector callbacks or a URL its operator listed)" };
  const method = meta["token_endpoint_auth_method"] ?? "none";
  if (method !== "none") {
    return {
      ok: false,
      reason:
        typeof method === "string" && SECRET_METHODS.includes(method)
          ? "a metadata document cannot hold a shared secret: token_endpoint_auth_method must be none"
          : "token_endpoint_auth_method must be none",
    };
  }
  if ("client_secret" in meta || "client_secret_expires_at" in meta) return { ok: false, reason: "a metadata document must not carry a client_secret" };
  const grants = meta["grant_types"] ?? ["authorization_code"];
  if (!Array.isArray(grants) || !grants.every((g) => g === "authorization_code" || g === "refresh_token") || !grants.includes("authorization_code")) {
    return { ok: false, reason: "grant_types may only be authorization_code and refresh_token" };
  }
  const responses = meta["response_types"] ?? ["code"];
  if (!Array.isArray(responses) || !responses.every((r) => r === "code")) return { ok: false, reason: 'response_types may only be ["code"]' };
  const rawName = meta["client_name"];
  const clientName = typeof rawName === "string" && rawName.trim() !== "" ? rawName.trim().slice(0, MAX_NAME_CHARS) : "unnamed client";
  return {
    ok: true,
    client: {
      clientId,
      secretHash: null,
      authMethod: "none",
      clientName,
      redirectUris: uris,
      metadata: { client_id: clientId, client_name: clientName, redirect_uris: uris },
      createdMs: 0,
      lastGrantMs: null,
    },
  };
}
