import type { NewSiteGrant, NewSiteRecord, SiteGrantRecord, SiteRecord, SiteSessionUpdate, SiteStore } from "../SiteStore.js";
import { insertSiteGrant, listSiteGrants, revokeSiteGrants } from "./queries/siteGrants.js";
import type { PostgresStoreOptions } from "./openPostgresStore.js";
import { openPostgresParts } from "./openPostgresStore.js";
import { PgTransactions } from "./pgTransactions.js";
import { deleteSite, listSites, saveSiteSession, selectSite, upsertSite } from "./queries/sites.js";

/** The owner's sites on PostgreSQL: sessions only sealed, every change of a definition journaled in its transaction. */
export function openPostgresSiteStore(options: PostgresStoreOptions): SiteStore {
  const { pool, ctx, ready } = openPostgresParts(options);
  return new PostgresSiteStore(pool, ctx, ready, options.connectionString, options.busyPatienceMs ?? 30_000);
}

class PostgresSiteStore extends PgTransactions implements SiteStore {
  putSite(record: NewSiteRecord): Promise<{ created: boolean; record: SiteRecord }> {
    return this.write((tx) => upsertSite(tx, record));
  }
  readSite(name: string): Promise<SiteRecord | null> {
    return this.read((tx) => selectSite(tx, name));
  }
  listSites(): Promise<SiteRecord[]> {
    return this.read((tx) => listSites(tx));
  }
  deleteSite(name: string): Promise<boolean> {
    return this.write((tx) => deleteSite(tx, name));
  }
  saveSession(name: string, definedMs: number, session: SiteSessionUpdate): Promise<boolean> {
    return this.write((tx) => saveSiteSession(tx, name, definedMs, session));
  }
  grantSite(grant: NewSiteGrant): Promise<SiteGrantRecord | null> {
    return this.write((tx) => insertSiteGrant(tx, grant));
  }
  listGrants(site: string | null): Promise<SiteGrantRecord[]> {
    return this.read((tx) => listSiteGrants(tx, site));
  }
  revokeGrants(site: string): Promise<string[]> {
    return this.write((tx) => revokeSiteGrants(tx, site));
  }
}
