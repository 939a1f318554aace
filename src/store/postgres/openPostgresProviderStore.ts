import type { ProviderStateRecord, ProviderStore, SlotGrant, SlotRequest, SmokeResult, UsageEntry, UsageTotals } from "../ProviderStore.js";
import type { BreakerRecord } from "../Store.js";
import type { PostgresStoreOptions } from "./openPostgresStore.js";
import { openPostgresParts } from "./openPostgresStore.js";
import { PgTransactions } from "./pgTransactions.js";
import { listBreakers, readBreaker, writeBreaker } from "./queries/breakers.js";
import { acquireSlot, releaseSlot, selectExpiredReserved, selectLiveSlots, sumUsageSince } from "./queries/providers/providerSlots.js";
import { listProviderStates, recordAuthFailure, recordBackoff, recordSmoke, selectProviderState } from "./queries/providers/providerState.js";

/**
 * The router's provider tables on PostgreSQL: breakers (the same rows the operations store uses),
 * activation, back-off, slots and usage, shared by every runner on every machine through the
 * database. Slot decisions of one provider are serialized by an advisory lock (providerSlots.ts).
 */
export function openPostgresProviderStore(options: PostgresStoreOptions): ProviderStore {
  const { pool, ctx, ready } = openPostgresParts(options);
  return new PostgresProviderStore(pool, ctx, ready, options.connectionString, options.busyPatienceMs ?? 30_000);
}

class PostgresProviderStore extends PgTransactions implements ProviderStore {
  readBreaker(provider: string): Promise<BreakerRecord> {
    return this.single((tx) => readBreaker(tx, provider));
  }
  listBreakers(): Promise<BreakerRecord[]> {
    return this.read((tx) => listBreakers(tx));
  }
  writeBreaker(next: BreakerRecord, expectedRevision: number): Promise<boolean> {
    return this.write((tx) => writeBreaker(tx, next, expectedRevision));
  }

  readProviderState(provider: string): Promise<ProviderStateRecord> {
    return this.read((tx) => selectProviderState(tx, provider));
  }
  listProviderStates(): Promise<ProviderStateRecord[]> {
    return this.read((tx) => listProviderStates(tx));
  }
  recordSmoke(result: SmokeResult): Promise<ProviderStateRecord> {
    return this.write((tx) => recordSmoke(tx, result));
  }
  recordAuthFailure(provider: string, reason: string): Promise<ProviderStateRecord> {
    return this.write((tx) => recordAuthFailure(tx, provider, reason));
  }
  recordBackoff(provider: string, untilMs: number, reason: string): Promise<void> {
    return this.write((tx) => recordBackoff(tx, provider, untilMs, reason));
  }

  acquireSlot(request: SlotRequest): Promise<SlotGrant> {
    return this.write((tx) => acquireSlot(tx, request));
  }
  releaseSlot(slotId: string, usage: UsageEntry | null): Promise<void> {
    return this.write((tx) => releaseSlot(tx, slotId, usage));
  }
  readUsage(provider: string, sinceMs: number): Promise<UsageTotals> {
    return this.read(async (tx) => {
      const booked = await sumUsageSince(tx, provider, sinceMs);
      const live = await selectLiveSlots(tx, provider);
      return {
        provider,
        sessions: booked.sessions,
        sessionMs: booked.sessionMs,
        amount: booked.amount,
        usd: booked.usd,
        liveSlots: live.live,
        reserved: live.reserved + (await selectExpiredReserved(tx, provider)),
        nextSlotExpiryMs: live.firstExpiryMs,
      };
    });
  }
}
