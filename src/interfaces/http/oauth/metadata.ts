import type { ServeSettings } from "../serveSettings.js";
import { RESOURCE_SCOPES, SUPPORTED_SCOPES } from "./scopes.js";

/** Where the protected-resource metadata of the MCP endpoint lives (RFC 9728 §3.1: inserted before the path). */
export function resourceMetadataUrl(settings: ServeSettings): string {
  return `${settings.publicOrigin}/.well-known/oauth-protected-resource/mcp`;
}

/** RFC 9728 protected-resource metadata for /mcp. `resource` is exactly the URL ChatGPT is given. */
export function protectedResourceMetadata(settings: ServeSettings): Record<string, unknown> {
  return {
    resource: settings.mcpResource,
    authorization_servers: [settings.publicOrigin],
    scopes_supported: [...RESOURCE_SCOPES],
    bearer_methods_supported: ["header"],
    resource_name: "errand",
  };
}

/** RFC 8414 authorization-server metadata. One origin is both the issuer and the resource server. */
export function authorizationServerMetadata(settings: ServeSettings, clientIdMetadataDocuments: boolean): Record<string, unknown> {
  const base = settings.publicOrigin;
  return {
    issuer: base,
    authorization_endpoint: `${base}/authorize`,
    token_endpoint: `${base}/token`,
    registration_endpoint: `${base}/register`,
    revocation_endpoint: `${base}/revoke`,
    scopes_supported: [...SUPPORTED_SCOPES],
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none", "client_secret_post", "client_secret_basic"],
    revocation_endpoint_auth_methods_supported: ["none", "client_secret_post", "client_secret_basic"],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: clientIdMetadataDocuments,
  };
}
