import type { NewSiteGrant, SiteGrantRecord } from "../../SiteStore.js";
import { SITES_TABLE, SITE_GRANTS_TABLE, isAuthenticRow } from "../../rows/authenticRows.js";
import { grantGivenBody, grantsRevokedBody, siteGrantRecordOf } from "../../rows/siteGrantRows.js";
import type { SiteGrantRow } from "../../rows/siteGrantRows.js";
import { sealRow } from "../authenticTablePg.js";
import { appendJournalEvent } from "../appendJournalEvent.js";
import type { PgTx } from "../pgContext.js";

function recordOf(tx: PgTx, row: SiteGrantRow): SiteGrantRecord {
  return siteGrantRecordOf(row, isAuthenticRow(tx.ctx.sealer, SITE_GRANTS_TABLE, row as unknown as Record<string, unknown>));
}

/** Inserts a grant when its site is there, authentic, and still has the definition it names (locked meanwhile); journals it. */
export async function insertSiteGrant(tx: PgTx, grant: NewSiteGrant): Promise<SiteGrantRecord | null> {
  const site = await tx.one<Record<string, unknown>>("SELECT * FROM sites WHERE name = $1 FOR UPDATE", [grant.site]);
  if (site === undefined || !isAuthenticRow(tx.ctx.sealer, SITES_TABLE, site) || Number(site["defined_ms"]) !== grant.siteDefinedMs) return null;
  await tx.run(
    `INSERT INTO site_grants (grant_id, site, site_defined_ms, risk, secrets_json, via, created_ms, expires_ms, revoked_ms)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL)`,
    [grant.grantId, grant.site, grant.siteDefinedMs, grant.risk, JSON.stringify(grant.secrets), grant.via, tx.now, tx.now + grant.durationMs],
  );
  await sealRow(tx, SITE_GRANTS_TABLE, [grant.grantId]);
  const row = await tx.one<SiteGrantRow>("SELECT * FROM site_grants WHERE grant_id = $1", [grant.grantId]);
  if (row === undefined) throw new Error(`grant ${grant.grantId} vanished inside its own transaction`);
  const record = recordOf(tx, row);
  await appendJournalEvent(tx, { type: "site_changed", operationId: null, body: grantGivenBody(record) }, tx.now);
  return record;
}

export async function listSiteGrants(tx: PgTx, site: string | null): Promise<SiteGrantRecord[]> {
  const rows =
    site === null
      ? await tx.rows<SiteGrantRow>("SELECT * FROM site_grants ORDER BY site, created_ms")
      : await tx.rows<SiteGrantRow>("SELECT * FROM site_grants WHERE site = $1 ORDER BY created_ms", [site]);
  return rows.map((row) => recordOf(tx, row));
}

/** Ends every unrevoked grant of the site (see the SQLite twin). */
export async function revokeSiteGrants(tx: PgTx, site: string): Promise<string[]> {
  const ids = (
    await tx.rows<{ grant_id: string }>("SELECT grant_id FROM site_grants WHERE site = $1 AND revoked_ms IS NULL ORDER BY created_ms FOR UPDATE", [site])
  ).map((row) => row.grant_id);
  for (const id of ids) {
    await tx.run("UPDATE site_grants SET revoked_ms = $2 WHERE grant_id = $1", [id, tx.now]);
    await sealRow(tx, SITE_GRANTS_TABLE, [id]);
  }
  if (ids.length > 0) await appendJournalEvent(tx, { type: "site_changed", operationId: null, body: grantsRevokedBody(site, ids) }, tx.now);
  return ids;
}
