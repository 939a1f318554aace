import type { SiteSessionState } from "../store/SiteStore.js";
import { ErrandError } from "../errors/errandError.js";

/** A site as the owner defined it: never its session. */
export interface SiteDefinition {
  name: string;
  /** Normalized, sorted origins (src/secrets/secretSite.ts's form): the only places its session goes. */
  origins: string[];
  loginUrl: string | null;
  /** A selector that is on the target page only when logged in; null: errand cannot tell. */
  loggedInSelector: string | null;
  loginHosts: string[];
  /** When the definition was written; a session is sealed to it. */
  definedMs: number;
}

/** A cookie as the browser's storage state holds it. */
export interface SessionCookie {
  name: string;
  value: string;
  domain: string;
  path: string;
  /** Unix seconds; -1 for a session cookie. */
  expires: number;
  httpOnly: boolean;
  secure: boolean;
  sameSite: "Strict" | "Lax" | "None";
}

/** A saved login: the cookies and local storage of the site's origins only. */
export interface SavedSession {
  cookies: SessionCookie[];
  origins: { origin: string; localStorage: { name: string; value: string }[] }[];
}

/** What `errand site list|show` and the REST/MCP listings show: never a session or any part of it. */
export interface SiteSummary {
  name: string;
  origins: string[];
  loginUrl: string | null;
  loggedInSelector: string | null;
  loginHosts: string[];
  /** none: no session saved; saved: one is saved and was logged in when last used; expired: the logged-in check last failed. */
  session: SiteSessionState;
  loggedIn: boolean;
  sessionSavedAt: string | null;
  /** False when its stored definition fails its row MAC: no task may use it until the owner sets it up again. */
  authentic: boolean;
  createdAt: string;
  definedAt: string;
  /** The site's live standing grants (authentic, unrevoked, unexpired, given under its current definition). */
  grants: SiteGrantSummary[];
}

/** A standing grant as every listing shows it (read-only everywhere but the owner's CLI and console). */
export interface SiteGrantSummary {
  id: string;
  risk: "reversible_write" | "consequential";
  secrets: string[];
  via: "cli" | "console";
  grantedAt: string;
  expiresAt: string;
}

/**
 * A live grant with the site's origins, the fact the owner-approval decision is given: tasks on
 * those origins, of at most that risk, typing only those secrets, need no per-task approval until
 * `expiresMs`.
 */
export interface LiveSiteGrant {
  grantId: string;
  site: string;
  origins: string[];
  risk: "reversible_write" | "consequential";
  secrets: string[];
  expiresMs: number;
}

/**
 * The executor's view of the sites: a definition, its saved session (opened for one attempt), and
 * the way a session goes back. Sessions travel only between this port and the task's browser.
 */
export interface SiteSessions {
  /** The definition, or null when the owner never set that site up. */
  lookup(name: string): Promise<SiteDefinition | null>;
  /** The site's saved session restricted to its origins, or null when none is saved (or it cannot be opened). */
  openSession(site: SiteDefinition): Promise<SavedSession | null>;
  /** Saves the session restricted to the site's origins (null drops it), or records that it was seen logged out. */
  saveSession(site: SiteDefinition, session: SavedSession | null, state: "saved" | "expired"): Promise<void>;
  /** The owner console's login page for the site, where the person is sent when login_required. */
  loginPageUrl(name: string): string;
}

/** A refusal about a site, with its code; messages never carry a session value. */
export class SiteError extends ErrandError {}
