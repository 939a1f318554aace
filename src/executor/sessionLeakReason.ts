import { hostWithinSites, originMatchesSites } from "../secrets/secretSite.js";
import { originOf } from "./originOf.js";

/**
 * Why a site task's request would carry the site's cookies off the site, or null when it would not:
 * its origin is not one of the site's, but its host is a site host. Cookies are scoped by host, not
 * by port or (without Secure) scheme, so the browser would send them there.
 */
export function sessionLeakReason(url: string, siteOrigins: readonly string[] | undefined): string | null {
  if (siteOrigins === undefined) return null;
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return null;
  }
  if (originMatchesSites(url, siteOrigins) || !hostWithinSites(host, siteOrigins)) return null;
  return `${originOf(url)} is not one of the site's origins, but the browser would send it the site's cookies`;
}
