import type { NewSiteRecord, SiteRecord, SiteSessionUpdate } from "../../SiteStore.js";
import { SITES_TABLE, isAuthenticRow } from "../../rows/authenticRows.js";
import { siteChangeBody, siteRecordOf } from "../../rows/siteRows.js";
import { sealRow } from "../authenticTablePg.js";
import type { SiteRow } from "../../rows/siteRows.js";
import { appendJournalEvent } from "../appendJournalEvent.js";
import type { PgTx } from "../pgContext.js";

export async function selectSite(tx: PgTx, name: string, lock = false): Promise<SiteRecord | null> {
  const row = await tx.one<SiteRow>(`SELECT * FROM sites WHERE name = $1${lock ? " FOR UPDATE" : ""}`, [name]);
  return row === undefined ? null : recordOf(tx, row);
}

function recordOf(tx: PgTx, row: SiteRow): SiteRecord {
  return siteRecordOf(row, isAuthenticRow(tx.ctx.sealer, SITES_TABLE, row as unknown as Record<string, unknown>));
}

export async function listSites(tx: PgTx): Promise<SiteRecord[]> {
  return (await tx.rows<SiteRow>("SELECT * FROM sites ORDER BY name")).map((row) => recordOf(tx, row));
}

/** Creates or replaces a site (dropping any saved session) and journals site_changed with its definition. */
export async function upsertSite(tx: PgTx, record: NewSiteRecord): Promise<{ created: boolean; record: SiteRecord }> {
  const before = await selectSite(tx, record.name, true);
  await tx.run(
    `INSERT INTO sites (name, origins_json, login_url, logged_in_selector, login_hosts_json, sealed_session, session_state, session_saved_ms, defined_ms, created_ms)
     VALUES ($1, $2, $3, $4, $5, NULL, 'none', NULL, $6, $6)
     ON CONFLICT (name) DO UPDATE SET origins_json = excluded.origins_json, login_url = excluded.login_url,
       logged_in_selector = excluded.logged_in_selector, login_hosts_json = excluded.login_hosts_json,
       sealed_session = NULL, session_state = 'none', session_saved_ms = NULL,
       defined_ms = greatest(excluded.defined_ms, sites.defined_ms + 1)`,
    [record.name, JSON.stringify(record.origins), record.loginUrl, record.loggedInSelector, JSON.stringify(record.loginHosts), tx.now],
  );
  // The owner's command writes every MAC'd column, so the row is sealed whatever it held before.
  await sealRow(tx, SITES_TABLE, [record.name]);
  const row = await tx.one<SiteRow>("SELECT * FROM sites WHERE name = $1", [record.name]);
  if (row === undefined) throw new Error(`site ${record.name} vanished inside its own transaction`);
  await appendJournalEvent(tx, { type: "site_changed", operationId: null, body: siteChangeBody(record, before === null ? "created" : "replaced") }, tx.now);
  return { created: before === null, record: recordOf(tx, row) };
}

/** Deletes a site with its session and journals site_changed (deleted, with the definition it had). */
export async function deleteSite(tx: PgTx, name: string): Promise<boolean> {
  const before = await tx.one<SiteRow>("DELETE FROM sites WHERE name = $1 RETURNING *", [name]);
  if (before === undefined) return false;
  await appendJournalEvent(tx, { type: "site_changed", operationId: null, body: siteChangeBody(siteRecordOf(before, false), "deleted") }, tx.now);
  return true;
}

/** Stores a site's sealed session when the site still has the definition it was sealed under (not re-sealed: see the SQLite twin). */
export async function saveSiteSession(tx: PgTx, name: string, definedMs: number, session: SiteSessionUpdate): Promise<boolean> {
  const changed = await tx.run("UPDATE sites SET sealed_session = $3, session_state = $4, session_saved_ms = $5 WHERE name = $1 AND defined_ms = $2", [
    name,
    definedMs,
    session.sealed,
    session.state,
    tx.now,
  ]);
  return changed === 1;
}
