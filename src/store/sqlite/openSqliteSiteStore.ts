import type { NewSiteGrant, NewSiteRecord, SiteGrantRecord, SiteRecord, SiteSessionUpdate, SiteStore } from "../SiteStore.js";
import { insertSiteGrant, listSiteGrants, revokeSiteGrants } from "./queries/sites/siteGrantSql.js";
import { ensureJournalHead } from "./ensureJournalHead.js";
import { migrate } from "./migrate.js";
import { MIGRATIONS } from "./migrations.js";
import { openDatabaseFile } from "./openDatabaseFile.js";
import type { SqliteSecretStoreOptions } from "./openSqliteSecretStore.js";
import { deleteSite, listSites, saveSiteSession, selectSite, upsertSite } from "./queries/sites/siteSql.js";
import { createSqliteContext } from "./sqliteContext.js";
import { SqliteTransactions } from "./sqliteTransactions.js";

/** Opens the sites table on its own connection to errand's database (migrations shared, journal head ensured). */
export function openSqliteSiteStore(options: SqliteSecretStoreOptions): SiteStore {
  const db = openDatabaseFile(options.path, options.busyTimeoutMs);
  try {
    migrate(db, MIGRATIONS, options.path, options.sealer, options.keepMigrationBackups);
    const ctx = createSqliteContext(db, options.sealer, options.clock ?? Date.now);
    db.immediate(() => ensureJournalHead(ctx));
    return new SqliteSiteStore(ctx, options.busyPatienceMs ?? 30_000);
  } catch (error) {
    db.close();
    throw error;
  }
}

class SqliteSiteStore extends SqliteTransactions implements SiteStore {
  putSite(record: NewSiteRecord): Promise<{ created: boolean; record: SiteRecord }> {
    return this.write(() => upsertSite(this.ctx, record));
  }
  readSite(name: string): Promise<SiteRecord | null> {
    return this.read(() => selectSite(this.ctx, name));
  }
  listSites(): Promise<SiteRecord[]> {
    return this.read(() => listSites(this.ctx));
  }
  deleteSite(name: string): Promise<boolean> {
    return this.write(() => deleteSite(this.ctx, name));
  }
  saveSession(name: string, definedMs: number, session: SiteSessionUpdate): Promise<boolean> {
    return this.write(() => saveSiteSession(this.ctx, name, definedMs, session));
  }
  grantSite(grant: NewSiteGrant): Promise<SiteGrantRecord | null> {
    return this.write(() => insertSiteGrant(this.ctx, grant));
  }
  listGrants(site: string | null): Promise<SiteGrantRecord[]> {
    return this.read(() => listSiteGrants(this.ctx, site));
  }
  revokeGrants(site: string): Promise<string[]> {
    return this.write(() => revokeSiteGrants(this.ctx, site));
  }
}
