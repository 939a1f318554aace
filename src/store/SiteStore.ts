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
  /**
   * Records the owner's standing grant on a site, bound to the site's definition time, and journals
   * it (site_changed, change "granted") in its transaction. Null when the site is gone, fails its
   * row MAC, or was redefined since `definedMs`: nothing is granted then.
   */
  grantSite(grant: NewSiteGrant): Promise<SiteGrantRecord | null>;
  /** Every grant row of the site (all sites when null), revoked and expired ones included, each with its MAC's verdict. */
  listGrants(site: string | null): Promise<SiteGrantRecord[]>;
  /** Ends every unrevoked grant of the site and journals it (change "grants_revoked"); the ids it ended. */
  revokeGrants(site: string): Promise<string[]>;
  close(): Promise<void>;
}

/** A risk a standing grant can cover: read_only needs none. */
export type GrantRisk = "reversible_write" | "consequential";

export interface NewSiteGrant {
  grantId: string;
  site: string;
  /** The site definition the grant was given under: a redefined site's grants cover nothing. */
  siteDefinedMs: number;
  risk: GrantRisk;
  /** Sorted secret names the grant lets a task type. */
  secrets: string[];
  /** How long it lasts from now (the store's clock). */
  durationMs: number;
  /** Where the owner gave it: "cli" or "console". */
  via: "cli" | "console";
}

export interface SiteGrantRecord {
  grantId: string;
  site: string;
  siteDefinedMs: number;
  risk: GrantRisk;
  secrets: string[];
  via: "cli" | "console";
  createdMs: number;
  expiresMs: number;
  revokedMs: number | null;
  /** False when the row fails its MAC (widened, extended or un-revoked without the key): it grants nothing. */
  authentic: boolean;
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
