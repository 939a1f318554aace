import type { JournalSealer } from "../../journal/createJournalSealer.js";
import type { NewSiteGrant, NewSiteRecord, SiteGrantRecord, SiteRecord, SiteSessionUpdate, SiteStore } from "../SiteStore.js";
import { createLibsqlSchema } from "./createLibsqlSchema.js";
import { ensureJournalHead } from "./ensureJournalHead.js";
import type { LibsqlContext } from "./libsqlContext.js";
import { createLibsqlContext } from "./libsqlContext.js";
import type { LibsqlClientLike } from "./LibsqlClientLike.js";
import { grantSite, listGrants, revokeGrants } from "./queries/siteGrants.js";
import { deleteSite, listSites, putSite, readSite, saveSession } from "./queries/sites.js";

export interface LibsqlSiteStoreOptions {
  /** A client to errand's database; the site store owns it from here on and closes it (when it can be closed). */
  client: LibsqlClientLike;
  /** How the database is named in errors. */
  where: string;
  sealer: JournalSealer;
  clock?: () => number;
  busyPatienceMs?: number;
  /** The schema and journal head are known to be in place (openLibsqlStores opened the operations store on this client just before), so they are not checked again. */
  prepared?: boolean;
}

/**
 * Opens the owner's sites (definitions under a row MAC, saved sessions sealed to their definition)
 * and the standing grants on them on a libSQL client, creating the schema and the journal head when
 * the database is new.
 */
export async function openLibsqlSiteStore(options: LibsqlSiteStoreOptions): Promise<SiteStore> {
  try {
    const clock = options.clock ?? Date.now;
    if (options.prepared !== true) await createLibsqlSchema(options.client, options.where, clock());
    const ctx = createLibsqlContext(options.client, options.sealer, clock, options.busyPatienceMs ?? 30_000);
    if (options.prepared !== true) await ensureJournalHead(ctx);
    return new LibsqlSiteStore(ctx);
  } catch (error) {
    options.client.close?.();
    throw error;
  }
}

class LibsqlSiteStore implements SiteStore {
  constructor(private readonly ctx: LibsqlContext) {}

  putSite(record: NewSiteRecord): Promise<{ created: boolean; record: SiteRecord }> {
    return putSite(this.ctx, record);
  }
  readSite(name: string): Promise<SiteRecord | null> {
    return readSite(this.ctx, name);
  }
  listSites(): Promise<SiteRecord[]> {
    return listSites(this.ctx);
  }
  deleteSite(name: string): Promise<boolean> {
    return deleteSite(this.ctx, name);
  }
  saveSession(name: string, definedMs: number, session: SiteSessionUpdate): Promise<boolean> {
    return saveSession(this.ctx, name, definedMs, session);
  }
  grantSite(grant: NewSiteGrant): Promise<SiteGrantRecord | null> {
    return grantSite(this.ctx, grant);
  }
  listGrants(site: string | null): Promise<SiteGrantRecord[]> {
    return listGrants(this.ctx, site);
  }
  revokeGrants(site: string): Promise<string[]> {
    return revokeGrants(this.ctx, site);
  }
  close(): Promise<void> {
    this.ctx.client.close?.();
    return Promise.resolve();
  }
}
