import type { NewSiteRecord, SiteRecord, SiteSessionUpdate } from "../../../SiteStore.js";
import { SITES_TABLE, isAuthenticRow } from "../../../rows/authenticRows.js";
import { siteChangeBody, siteRecordOf } from "../../../rows/siteRows.js";
import { sealRow } from "../../authenticTableSql.js";
import type { SiteRow } from "../../../rows/siteRows.js";
import { appendJournalEvent } from "../../appendJournalEvent.js";
import type { SqliteContext } from "../../sqliteContext.js";

export function selectSite(ctx: SqliteContext, name: string): SiteRecord | null {
  const row = ctx.sql("SELECT * FROM sites WHERE name = ?").get(name) as SiteRow | undefined;
  return row === undefined ? null : recordOf(ctx, row);
}

function recordOf(ctx: SqliteContext, row: SiteRow): SiteRecord {
  return siteRecordOf(row, isAuthenticRow(ctx.sealer, SITES_TABLE, row as unknown as Record<string, unknown>));
}

export function listSites(ctx: SqliteContext): SiteRecord[] {
  return (ctx.sql("SELECT * FROM sites ORDER BY name").all() as SiteRow[]).map((row) => recordOf(ctx, row));
}

/** Creates or replaces a site (dropping any saved session) and journals site_changed with its definition. */
export function upsertSite(ctx: SqliteContext, record: NewSiteRecord): { created: boolean; record: SiteRecord } {
  const now = ctx.clock();
  const before = selectSite(ctx, record.name);
  ctx
    .sql(
      `INSERT INTO sites (name, origins_json, login_url, logged_in_selector, login_hosts_json, sealed_session, session_state, session_saved_ms, defined_ms, created_ms)
       VALUES (@name, @origins, @loginUrl, @selector, @loginHosts, NULL, 'none', NULL, @now, @now)
       ON CONFLICT (name) DO UPDATE SET origins_json = excluded.origins_json, login_url = excluded.login_url,
         logged_in_selector = excluded.logged_in_selector, login_hosts_json = excluded.login_hosts_json,
         sealed_session = NULL, session_state = 'none', session_saved_ms = NULL,
         defined_ms = max(excluded.defined_ms, sites.defined_ms + 1)`,
    )
    .run({
      name: record.name,
      origins: JSON.stringify(record.origins),
      loginUrl: record.loginUrl,
      selector: record.loggedInSelector,
      loginHosts: JSON.stringify(record.loginHosts),
      now,
    });
  // The owner's command writes every MAC'd column, so the row is sealed whatever it held before.
  sealRow(ctx, SITES_TABLE, [record.name]);
  appendJournalEvent(ctx, { type: "site_changed", operationId: null, body: siteChangeBody(record, before === null ? "created" : "replaced") }, now);
  const after = selectSite(ctx, record.name);
  if (after === null) throw new Error(`site ${record.name} vanished inside its own transaction`);
  return { created: before === null, record: after };
}

/** Deletes a site with its session and journals site_changed (deleted, with the definition it had). */
export function deleteSite(ctx: SqliteContext, name: string): boolean {
  const before = selectSite(ctx, name);
  if (before === null) return false;
  ctx.sql("DELETE FROM sites WHERE name = ?").run(name);
  appendJournalEvent(ctx, { type: "site_changed", operationId: null, body: siteChangeBody(before, "deleted") }, ctx.clock());
  return true;
}

/**
 * Stores a site's sealed session when the site still has the definition it was sealed under. The
 * session columns are not under the row MAC (the session is sealed to the definition), so the row is
 * not sealed again here: that would bless a definition edited without the key.
 */
export function saveSiteSession(ctx: SqliteContext, name: string, definedMs: number, session: SiteSessionUpdate): boolean {
  const result = ctx
    .sql("UPDATE sites SET sealed_session = @sealed, session_state = @state, session_saved_ms = @now WHERE name = @name AND defined_ms = @definedMs")
    .run({ name, definedMs, sealed: session.sealed, state: session.state, now: ctx.clock() });
  return result.changes === 1;
}
