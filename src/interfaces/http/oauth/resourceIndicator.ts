import type { ServeSettings } from "../serveSettings.js";

/**
 * RFC 8707: is `value` this server's MCP resource? Compared as parsed URLs without fragment, and a
 * single trailing slash is forgiven (clients differ on it); anything else (another host, port,
 * path or scheme) is another resource.
 */
export function matchesResource(value: string, settings: Pick<ServeSettings, "mcpResource">): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  url.hash = "";
  const href = url.href.endsWith("/") ? url.href.slice(0, -1) : url.href;
  return href === settings.mcpResource;
}
