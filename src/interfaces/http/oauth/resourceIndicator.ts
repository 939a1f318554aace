import type { ServeSettings } from "../serveSettings.js";

/**
 * RFC 8707: is `value` this server's MCP resource? Compared as parsed URLs without fragment, and a
 * single trailing slash is forgiven (clients differ on it). The bare origin (`https://host` or
 * `https://host/`) names the same resource: errand serves one protected resource per origin, and
 * OpenAI's own connector example sends the origin. Anything else (another host, port, path, query
 * or scheme) is another resource.
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
  if (href === settings.mcpResource) return true;
  const resource = new URL(settings.mcpResource);
  return url.origin === resource.origin && url.pathname === "/" && url.search === "" && url.username === "" && url.password === "";
}
