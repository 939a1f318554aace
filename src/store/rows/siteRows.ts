import type { SiteRecord, SiteSessionState } from "../SiteStore.js";

/** A sites row as both SQL backends return it. */
export interface SiteRow {
  name: string;
  origins_json: string;
  login_url: string | null;
  logged_in_selector: string | null;
  login_hosts_json: string;
  sealed_session: string | null;
  session_state: SiteSessionState;
  session_saved_ms: number | string | null;
  defined_ms: number | string;
  created_ms: number | string;
}

/** The record of a row; `authentic` is its row MAC's verdict (rows/authenticRows SITES_TABLE). */
export function siteRecordOf(row: SiteRow, authentic: boolean): SiteRecord {
  return {
    name: row.name,
    origins: JSON.parse(row.origins_json) as string[],
    loginUrl: row.login_url,
    loggedInSelector: row.logged_in_selector,
    loginHosts: JSON.parse(row.login_hosts_json) as string[],
    sealedSession: row.sealed_session,
    sessionState: row.session_state,
    sessionSavedMs: row.session_saved_ms === null ? null : Number(row.session_saved_ms),
    definedMs: Number(row.defined_ms),
    createdMs: Number(row.created_ms),
    authentic,
  };
}

/** The journal body of a site_changed event: the definition, never the session. */
export function siteChangeBody(
  record: { name: string; origins: string[]; loginUrl: string | null; loggedInSelector: string | null; loginHosts: string[] },
  change: "created" | "replaced" | "deleted",
): Record<string, unknown> {
  return {
    name: record.name,
    change,
    origins: record.origins,
    loginUrl: record.loginUrl,
    loggedInSelector: record.loggedInSelector,
    loginHosts: record.loginHosts,
  };
}
