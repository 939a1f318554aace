import { SITES_TABLE, SITE_GRANTS_TABLE, isAuthenticRow } from "../../rows/authenticRows.js";
import type { SiteGrantRow } from "../../rows/siteGrantRows.js";
import { grantGivenBody, grantsRevokedBody, siteGrantRecordOf } from "../../rows/siteGrantRows.js";
import type { NewSiteGrant, SiteGrantRecord } from "../../SiteStore.js";
import { appendJournalEvent } from "../appendJournalEvent.js";
import { rowMacUnchanged, sealedInsert, sealedUpdate } from "../authenticRowWrite.js";
import { applyGuarded, joinWrites } from "../batchGuard.js";
import { headIn, requireHead, SELECT_HEAD } from "../journalHead.js";
import type { LibsqlContext } from "../libsqlContext.js";
import { statement } from "../LibsqlClientLike.js";
import { firstRowIn, queryRows, rowsIn } from "../libsqlRows.js";
import { optimisticWrite } from "../optimisticWrite.js";
import type { StoredSiteRow } from "./sites.js";
import { SELECT_SITE, siteUnchanged } from "./sites.js";

function recordOf(ctx: LibsqlContext, row: SiteGrantRow): SiteGrantRecord {
  return siteGrantRecordOf(row, isAuthenticRow(ctx.sealer, SITE_GRANTS_TABLE, row as unknown as Record<string, unknown>));
}

/**
 * Inserts a grant when its site is there, authentic, and still has the definition it names, guarded
 * on that site row as read (a site redefined meanwhile refuses it); journals it.
 */
export function grantSite(ctx: LibsqlContext, grant: NewSiteGrant): Promise<SiteGrantRecord | null> {
  return optimisticWrite(ctx, `granting on site ${grant.site}`, async () => {
    const [siteResult, headResult] = await ctx.client.batch([statement(SELECT_SITE, grant.site), SELECT_HEAD], "read");
    const site = firstRowIn<StoredSiteRow>(siteResult);
    if (
      site === undefined ||
      !isAuthenticRow(ctx.sealer, SITES_TABLE, site as unknown as Record<string, unknown>) ||
      Number(site.defined_ms) !== grant.siteDefinedMs
    )
      return null;
    const now = ctx.clock();
    const row = {
      grant_id: grant.grantId,
      site: grant.site,
      site_defined_ms: grant.siteDefinedMs,
      risk: grant.risk,
      secrets_json: JSON.stringify(grant.secrets),
      via: grant.via,
      created_ms: now,
      expires_ms: now + grant.durationMs,
      revoked_ms: null,
    };
    const record = siteGrantRecordOf(row, true);
    const write = { guards: [siteUnchanged(grant.site, site)], writes: [sealedInsert(ctx, SITE_GRANTS_TABLE, row)] };
    const journaled = appendJournalEvent(
      ctx,
      requireHead(ctx, headIn(headResult)),
      { type: "site_changed", operationId: null, body: grantGivenBody(record) },
      now,
    ).write;
    await applyGuarded(ctx.client, `granting on site ${grant.site}`, joinWrites(write, journaled));
    return record;
  });
}

export async function listGrants(ctx: LibsqlContext, site: string | null): Promise<SiteGrantRecord[]> {
  const rows =
    site === null
      ? await queryRows<SiteGrantRow>(ctx.client, "SELECT * FROM site_grants ORDER BY site, created_ms")
      : await queryRows<SiteGrantRow>(ctx.client, "SELECT * FROM site_grants WHERE site = ? ORDER BY created_ms", site);
  return rows.map((row) => recordOf(ctx, row));
}

/** Ends every unrevoked grant of the site in one batch. Revoking only takes authority away, so each row is sealed as found. */
export function revokeGrants(ctx: LibsqlContext, site: string): Promise<string[]> {
  return optimisticWrite(ctx, `revoking the grants on site ${site}`, async () => {
    const [grantsResult, headResult] = await ctx.client.batch(
      [statement("SELECT * FROM site_grants WHERE site = ? AND revoked_ms IS NULL ORDER BY created_ms", site), SELECT_HEAD],
      "read",
    );
    const rows = rowsIn<SiteGrantRow & { mac: string | null }>(grantsResult);
    if (rows.length === 0) return [];
    const now = ctx.clock();
    const ids = rows.map((row) => row.grant_id);
    const revokes = rows.map((row) => ({
      guards: [rowMacUnchanged(SITE_GRANTS_TABLE, row)],
      writes: [sealedUpdate(ctx, SITE_GRANTS_TABLE, row, { revoked_ms: now })],
    }));
    const journaled = appendJournalEvent(
      ctx,
      requireHead(ctx, headIn(headResult)),
      { type: "site_changed", operationId: null, body: grantsRevokedBody(site, ids) },
      now,
    ).write;
    await applyGuarded(ctx.client, `revoking the grants on site ${site}`, joinWrites(...revokes, journaled));
    return ids;
  });
}
