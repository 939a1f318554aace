import type { GrantRisk, SiteGrantRecord } from "../SiteStore.js";

/** A site_grants row as both SQL backends return it. */
export interface SiteGrantRow {
  grant_id: string;
  site: string;
  site_defined_ms: number | string;
  risk: GrantRisk;
  secrets_json: string;
  via: "cli" | "console";
  created_ms: number | string;
  expires_ms: number | string;
  revoked_ms: number | string | null;
}

/** The record of a row; `authentic` is its row MAC's verdict (rows/authenticRows SITE_GRANTS_TABLE). */
export function siteGrantRecordOf(row: SiteGrantRow, authentic: boolean): SiteGrantRecord {
  let secrets: string[] = [];
  try {
    const parsed = JSON.parse(row.secrets_json) as unknown;
    if (Array.isArray(parsed)) secrets = parsed.map(String);
  } catch {
    // An unreadable list is an edited row: it fails its MAC too, so it grants nothing either way.
    authentic = false;
  }
  return {
    grantId: row.grant_id,
    site: row.site,
    siteDefinedMs: Number(row.site_defined_ms),
    risk: row.risk,
    secrets,
    via: row.via,
    createdMs: Number(row.created_ms),
    expiresMs: Number(row.expires_ms),
    revokedMs: row.revoked_ms === null ? null : Number(row.revoked_ms),
    authentic,
  };
}

/** The journal body of a grant given: what it covers and until when. */
export function grantGivenBody(record: SiteGrantRecord): Record<string, unknown> {
  return {
    name: record.site,
    change: "granted",
    grantId: record.grantId,
    risk: record.risk,
    secrets: record.secrets,
    via: record.via,
    expiresMs: record.expiresMs,
  };
}

/** The journal body of a site's grants revoked. */
export function grantsRevokedBody(site: string, grantIds: readonly string[]): Record<string, unknown> {
  return { name: site, change: "grants_revoked", grantIds: [...grantIds] };
}
