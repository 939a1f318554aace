import type { JournalSealer } from "../../journal/createJournalSealer.js";
import type { ProviderStateRecord, ProviderStore, SlotGrant, SlotRequest, SmokeResult, UsageEntry, UsageTotals } from "../ProviderStore.js";
import type { BreakerRecord } from "../Store.js";
import { createLibsqlSchema } from "./createLibsqlSchema.js";
import { ensureJournalHead } from "./ensureJournalHead.js";
import type { LibsqlContext } from "./libsqlContext.js";
import { createLibsqlContext } from "./libsqlContext.js";
import type { LibsqlClientLike } from "./LibsqlClientLike.js";
import { listBreakers, readBreaker, writeBreaker } from "./queries/breakers.js";
import { acquireSlot, readUsage, releaseSlot } from "./queries/providers/providerSlots.js";
import { listProviderStates, readProviderState, recordAuthFailure, recordBackoff, recordSmoke } from "./queries/providers/providerStates.js";

export interface LibsqlProviderStoreOptions {
  /** A client to errand's database; the provider store owns it from here on and closes it (when it can be closed). */
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
 * Opens the router's shared state on a libSQL client (creating the schema and the journal head when
 * the database is new): breakers (the operations store's own queries), provider states, concurrency
 * slots and usage.
 */
export async function openLibsqlProviderStore(options: LibsqlProviderStoreOptions): Promise<ProviderStore> {
  try {
    const clock = options.clock ?? Date.now;
    if (options.prepared !== true) await createLibsqlSchema(options.client, options.where, clock());
    const ctx = createLibsqlContext(options.client, options.sealer, clock, options.busyPatienceMs ?? 30_000);
    if (options.prepared !== true) await ensureJournalHead(ctx);
    return new LibsqlProviderStore(ctx);
  } catch (error) {
    options.client.close?.();
    throw error;
  }
}

class LibsqlProviderStore implements ProviderStore {
  constructor(private readonly ctx: LibsqlContext) {}

  now(): Promise<number> {
    return Promise.resolve(this.ctx.clock());
  }
  close(): Promise<void> {
    this.ctx.client.close?.();
    return Promise.resolve();
  }

  readBreaker(provider: string): Promise<BreakerRecord> {
    return readBreaker(this.ctx, provider);
  }
  listBreakers(): Promise<BreakerRecord[]> {
    return listBreakers(this.ctx);
  }
  writeBreaker(next: BreakerRecord, expectedRevision: number): Promise<boolean> {
    return writeBreaker(this.ctx, next, expectedRevision);
  }

  readProviderState(provider: string): Promise<ProviderStateRecord> {
    return readProviderState(this.ctx, provider);
  }
  listProviderStates(): Promise<ProviderStateRecord[]> {
    return listProviderStates(this.ctx);
  }
  recordSmoke(result: SmokeResult): Promise<ProviderStateRecord> {
    return recordSmoke(this.ctx, result);
  }
  recordAuthFailure(provider: string, reason: string): Promise<ProviderStateRecord> {
    return recordAuthFailure(this.ctx, provider, reason);
  }
  recordBackoff(provider: string, untilMs: number, reason: string): Promise<void> {
    return recordBackoff(this.ctx, provider, untilMs, reason);
  }

  acquireSlot(request: SlotRequest): Promise<SlotGrant> {
    return acquireSlot(this.ctx, request);
  }
  releaseSlot(slotId: string, usage: UsageEntry | null): Promise<void> {
    return releaseSlot(this.ctx, slotId, usage);
  }
  readUsage(provider: string, sinceMs: number): Promise<UsageTotals> {
    return readUsage(this.ctx, provider, sinceMs);
  }
}
