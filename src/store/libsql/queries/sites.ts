import { SITES_TABLE, isAuthenticRow } from "../../rows/authenticRows.js";
import type { SiteRow } from "../../rows/siteRows.js";
import { siteChangeBody, siteRecordOf } from "../../rows/siteRows.js";
import type { NewSiteRecord, SiteRecord, SiteSessionUpdate } from "../../SiteStore.js";
import { appendJournalEvent } from "../appendJournalEvent.js";
import { sealedUpsert } from "../authenticRowWrite.js";
import type { GuardedWrite } from "../batchGuard.js";
import { applyGuarded, guard, joinWrites } from "../batchGuard.js";
import { headIn, requireHead, SELECT_HEAD } from "../journalHead.js";
import type { LibsqlContext } from "../libsqlContext.js";
import type { LibsqlStatement } from "../LibsqlClientLike.js";
import { statement } from "../LibsqlClientLike.js";
import { firstRowIn, queryRow, queryRows } from "../libsqlRows.js";
import { optimisticWrite } from "../optimisticWrite.js";

/** A sites row as read, with its MAC. */
export type StoredSiteRow = SiteRow & { mac: string | null };

export const SELECT_SITE = "SELECT * FROM sites WHERE name = ?";

export function siteRecordIn(ctx: LibsqlContext, row: StoredSiteRow): SiteRecord {
  return siteRecordOf(row, isAuthenticRow(ctx.sealer, SITES_TABLE, row as unknown as Record<string, unknown>));
}

/** A guard that holds while the site is as read: absent, or with the same definition time and MAC. */
export function siteUnchanged(name: string, row: StoredSiteRow | undefined): LibsqlStatement {
  return row === undefined
    ? guard("NOT EXISTS (SELECT 1 FROM sites WHERE name = ?)", name)
    : guard("EXISTS (SELECT 1 FROM sites WHERE name = ? AND defined_ms = ? AND mac IS ?)", name, Number(row.defined_ms), row.mac);
}

export async function readSite(ctx: LibsqlContext, name: string): Promise<SiteRecord | null> {
  const row = await queryRow<StoredSiteRow>(ctx.client, SELECT_SITE, name);
  return row === undefined ? null : siteRecordIn(ctx, row);
}

export async function listSites(ctx: LibsqlContext): Promise<SiteRecord[]> {
  return (await queryRows<StoredSiteRow>(ctx.client, "SELECT * FROM sites ORDER BY name")).map((row) => siteRecordIn(ctx, row));
}

/**
 * Creates or replaces a site and journals site_changed with its definition. A replacement drops any
 * saved session and moves the definition time forward (at least one past the old), so a session or
 * grant made for the old definition no longer fits. The owner's command writes every MAC'd column, so
 * the row is sealed whatever it held before.
 */
export function putSite(ctx: LibsqlContext, record: NewSiteRecord): Promise<{ created: boolean; record: SiteRecord }> {
  return optimisticWrite(ctx, `defining site ${record.name}`, async () => {
    const [rowResult, headResult] = await ctx.client.batch([statement(SELECT_SITE, record.name), SELECT_HEAD], "read");
    const before = firstRowIn<StoredSiteRow>(rowResult);
    const now = ctx.clock();
    const definedMs = before === undefined ? now : Math.max(now, Number(before.defined_ms) + 1);
    const row = {
      name: record.name,
      origins_json: JSON.stringify(record.origins),
      login_url: record.loginUrl,
      logged_in_selector: record.loggedInSelector,
      login_hosts_json: JSON.stringify(record.loginHosts),
      sealed_session: null,
      session_state: "none",
      session_saved_ms: null,
      defined_ms: definedMs,
      created_ms: before === undefined ? now : Number(before.created_ms),
    };
    const write: GuardedWrite = { guards: [siteUnchanged(record.name, before)], writes: [sealedUpsert(ctx, SITES_TABLE, row)] };
    const journaled = appendJournalEvent(
      ctx,
      requireHead(ctx, headIn(headResult)),
      { type: "site_changed", operationId: null, body: siteChangeBody(record, before === undefined ? "created" : "replaced") },
      now,
    ).write;
    await applyGuarded(ctx.client, `defining site ${record.name}`, joinWrites(write, journaled));
    return { created: before === undefined, record: siteRecordOf({ ...row, session_state: "none" }, true) };
  });
}

/** Deletes a site with its session and journals site_changed (deleted, with the definition it had). */
export function deleteSite(ctx: LibsqlContext, name: string): Promise<boolean> {
  return optimisticWrite(ctx, `deleting site ${name}`, async () => {
    const [rowResult, headResult] = await ctx.client.batch([statement(SELECT_SITE, name), SELECT_HEAD], "read");
    const before = firstRowIn<StoredSiteRow>(rowResult);
    if (before === undefined) return false;
    const write: GuardedWrite = { guards: [siteUnchanged(name, before)], writes: [statement("DELETE FROM sites WHERE name = ?", name)] };
    const journaled = appendJournalEvent(
      ctx,
      requireHead(ctx, headIn(headResult)),
      { type: "site_changed", operationId: null, body: siteChangeBody(siteRecordIn(ctx, before), "deleted") },
      ctx.clock(),
    ).write;
    await applyGuarded(ctx.client, `deleting site ${name}`, joinWrites(write, journaled));
    return true;
  });
}

/**
 * Stores a site's sealed session when the site still has the definition it was sealed under: one
 * fenced UPDATE. The session columns are not under the row MAC (the session is sealed to the
 * definition), so the row is not sealed again here: that would bless a definition edited without the key.
 */
export async function saveSession(ctx: LibsqlContext, name: string, definedMs: number, session: SiteSessionUpdate): Promise<boolean> {
  const result = await ctx.client.execute(
    statement(
      "UPDATE sites SET sealed_session = ?, session_state = ?, session_saved_ms = ? WHERE name = ? AND defined_ms = ?",
      session.sealed,
      session.state,
      ctx.clock(),
      name,
      definedMs,
    ),
  );
  return result.rowsAffected === 1;
}
