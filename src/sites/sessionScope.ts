import { hostWithinSites, originMatchesSites } from "../secrets/secretSite.js";
import type { SavedSession, SessionCookie } from "./siteTypes.js";

/** Values shorter than this (without whitespace) are not registered with the redactor: "en" or "1" is no credential, and scrubbing it would eat ordinary text. */
export const SESSION_VALUE_MIN_CHARS = 8;

/**
 * The part of a browser's storage state that belongs to a site: cookies every host of which is a
 * site host, and the local storage of the site's origins. A host-only cookie goes to its host on
 * every port, so its host must be a site host. A domain cookie (".example.com") goes to the domain
 * and all its subdomains, so it is kept only when the site has both that host and its wildcard.
 * A Secure cookie is kept only when the site has an https origin on its host. Everything else (a
 * tracker's cookies, another origin's storage) is dropped, on loading and on saving alike.
 */
export function restrictSessionToSite(state: SavedSession, origins: readonly string[]): SavedSession {
  return {
    cookies: state.cookies.filter((cookie) => cookieWithinSite(cookie, origins)).map(copyCookie),
    origins: state.origins
      .filter((entry) => originMatchesSites(entry.origin, origins))
      .map((entry) => ({ origin: entry.origin, localStorage: entry.localStorage.map((item) => ({ name: item.name, value: item.value })) }))
      .filter((entry) => entry.localStorage.length > 0),
  };
}

export function cookieWithinSite(cookie: SessionCookie, origins: readonly string[]): boolean {
  const domainCookie = cookie.domain.startsWith(".");
  const host = (domainCookie ? cookie.domain.slice(1) : cookie.domain).toLowerCase();
  if (host === "") return false;
  if (!hostWithinSites(host, origins)) return false;
  if (
    domainCookie &&
    !hostWithinSites(
      `x.${host}`,
      origins.filter((origin) => origin.includes("://*.")),
    )
  )
    return false;
  if (
    cookie.secure &&
    !hostWithinSites(
      host,
      origins.filter((origin) => origin.startsWith("https:")),
    )
  )
    return false;
  return true;
}

/** The session's cookie and storage values worth scrubbing (see SESSION_VALUE_MIN_CHARS). */
export function sessionValues(state: SavedSession): string[] {
  const values = [...state.cookies.map((cookie) => cookie.value), ...state.origins.flatMap((entry) => entry.localStorage.map((item) => item.value))];
  return [...new Set(values)].filter((value) => value.replace(/\s+/gu, "").length >= SESSION_VALUE_MIN_CHARS);
}

/** True when the session holds anything at all. */
export function sessionIsEmpty(state: SavedSession): boolean {
  return state.cookies.length === 0 && state.origins.length === 0;
}

function copyCookie(cookie: SessionCookie): SessionCookie {
  return {
    name: cookie.name,
    value: cookie.value,
    domain: cookie.domain,
    path: cookie.path,
    expires: cookie.expires,
    httpOnly: cookie.httpOnly,
    secure: cookie.secure,
    sameSite: cookie.sameSite,
  };
}
