import type { NewSiteGrant, SiteGrantRecord } from "../../../SiteStore.js";
import { SITES_TABLE, SITE_GRANTS_TABLE, isAuthenticRow } from "../../../rows/authenticRows.js";
import { grantGivenBody, grantsRevokedBody, siteGrantRecordOf } from "../../../rows/siteGrantRows.js";
import type { SiteGrantRow } from "../../../rows/siteGrantRows.js";
import { sealRow } from "../../authenticTableSql.js";
import { appendJournalEvent } from "../../appendJournalEvent.js";
import type { SqliteContext } from "../../sqliteContext.js";

function recordOf(ctx: SqliteContext, row: SiteGrantRow): SiteGrantRecord {
  return siteGrantRecordOf(row, isAuthenticRow(ctx.sealer, SITE_GRANTS_TABLE, row as unknown as Record<string, unknown>));
}

/** Inserts a grant when its site is there, authentic, and still has the definition it names; journals it. */
export function insertSiteGrant(ctx: SqliteContext, grant: NewSiteGrant): SiteGrantRecord | null {
  const site = ctx.sql("SELECT * FROM sites WHERE name = ?").get(grant.site) as Record<string, unknown> | undefined;
  if (site === undefined || !isAuthenticRow(ctx.sealer, SITES_TABLE, site) || Number(site["defined_ms"]) !== grant.siteDefinedMs) return null;
  const now = ctx.clock();
  ctx
    .sql(
      `INSERT INTO site_grants (grant_id, site, site_defined_ms, risk, secrets_json, via, created_ms, expires_ms, revoked_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)`,
    )
    .run(grant.grantId, grant.site, grant.siteDefinedMs, grant.risk, JSON.stringify(grant.secrets), grant.via, now, now + grant.durationMs);
  sealRow(ctx, SITE_GRANTS_TABLE, [grant.grantId]);
  const row = ctx.sql("SELECT * FROM site_grants WHERE grant_id = ?").get(grant.grantId) as SiteGrantRow | undefined;
  if (row === undefined) throw new Error(`grant ${grant.grantId} vanished inside its own transaction`);
  const record = recordOf(ctx, row);
  appendJournalEvent(ctx, { type: "site_changed", operationId: null, body: grantGivenBody(record) }, now);
  return record;
}

export function listSiteGrants(ctx: SqliteContext, site: string | null): SiteGrantRecord[] {
  const rows = (
    site === null
      ? ctx.sql("SELECT * FROM site_grants ORDER BY site, created_ms").all()
      : ctx.sql("SELECT * FROM site_grants WHERE site = ? ORDER BY created_ms").all(site)
  ) as SiteGrantRow[];
  return rows.map((row) => recordOf(ctx, row));
}

/** Ends every unrevoked grant of the site. Revoking only takes authority away, so each row is sealed as found. */
export function revokeSiteGrants(ctx: SqliteContext, site: string): string[] {
  const now = ctx.clock();
  const ids = (ctx.sql("SELECT grant_id FROM site_grants WHERE site = ? AND revoked_ms IS NULL ORDER BY created_ms").all(site) as { grant_id: string }[]).map(
    (row) => row.grant_id,
  );
  for (const id of ids) {
    ctx.sql("UPDATE site_grants SET revoked_ms = ? WHERE grant_id = ?").run(now, id);
    sealRow(ctx, SITE_GRANTS_TABLE, [id]);
  }
  if (ids.length > 0) appendJournalEvent(ctx, { type: "site_changed", operationId: null, body: grantsRevokedBody(site, ids) }, now);
  return ids;
}
