/**
 * Where the owner's sites are kept: one row per name with the origins its saved session may be used
 * on, where its login starts, how to tell it is logged in, and the saved session itself as a sealed
 * payload (AES-256-GCM under the master key's "sites" subkey, sealed and opened in src/sites, never
 * here). The store sees only ciphertext. A change of a site's definition appends a `site_changed`
 * journal event (name, origins, login settings; never a session) in its transaction; saving a
 * session does not (it is the same grant, refreshed).
 */
export interface SiteStore {
  /** Creates or replaces a site's definition; a replaced site loses its saved session. */
  putSite(record: NewSiteRecord): Promise<{ created: boolean; record: SiteRecord }>;
  readSite(name: string): Promise<SiteRecord | null>;
  listSites(): Promise<SiteRecord[]>;
  /** True when a site of that name existed and is now gone (with its session). */
  deleteSite(name: string): Promise<boolean>;
  /**
   * Stores a site's session (sealed, or null to drop it) and what errand last learned of it. False
   * when the site is gone, or was redefined since `definedMs` (its origins may differ): nothing is stored then.
   */
  saveSession(name: string, definedMs: number, session: SiteSessionUpdate): Promise<boolean>;
  close(): Promise<void>;
}

/** What errand knows of a saved session: none saved, saved (last seen logged in or not yet checked), or seen logged out. */
export type SiteSessionState = "none" | "saved" | "expired";

export interface SiteSessionUpdate {
  /** The sealed session, or null to keep none. */
  sealed: string | null;
  state: SiteSessionState;
}

export interface NewSiteRecord {
  name: string;
  /** Normalized, sorted origins (src/secrets/secretSite.ts's form). */
  origins: string[];
  loginUrl: string | null;
  loggedInSelector: string | null;
  /** Extra hosts a login may pass through (an SSO provider), normalized and sorted; never given the session. */
  loginHosts: string[];
}

export interface SiteRecord extends NewSiteRecord {
  sealedSession: string | null;
  sessionState: SiteSessionState;
  sessionSavedMs: number | null;
  /** When the definition was last written (created or replaced); a session is bound to it. */
  definedMs: number;
  createdMs: number;
  /** False when the definition fails its row MAC (changed without the master key): it grants nothing. */
  authentic: boolean;
}
