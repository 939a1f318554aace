import { openDatabaseFile } from "./openDatabaseFile.js";
import type { JournalSealer } from "../../journal/createJournalSealer.js";
import type { ProviderStateRecord, ProviderStore, SlotGrant, SlotRequest, SmokeResult, UsageEntry, UsageTotals } from "../ProviderStore.js";
import type { BreakerRecord } from "../Store.js";
import { SqliteTransactions } from "./sqliteTransactions.js";
import { ensureJournalHead } from "./ensureJournalHead.js";
import { migrate } from "./migrate.js";
import { MIGRATIONS } from "./migrations.js";
import { listBreakers, readBreaker, writeBreaker } from "./queries/breakerSql.js";
import { acquireSlot, releaseSlot, selectExpiredReserved, selectLiveSlots } from "./queries/providers/providerSlotSql.js";
import { listProviderStates, recordAuthFailure, recordBackoff, recordSmoke, selectProviderState } from "./queries/providers/providerStateSql.js";
import { insertUsage, sumUsageSince } from "./queries/providers/providerUsageSql.js";
import { createSqliteContext } from "./sqliteContext.js";

export interface SqliteProviderStoreOptions {
  /** The same database file as the operations store (ERRAND_HOME/errand.db). */
  path: string;
  sealer: JournalSealer;
  busyTimeoutMs: number;
  /** Pre-migration copies a migration leaves beside the file, its own included (ERRAND_KEEP_MIGRATION_BACKUPS). Default 3. */
  keepMigrationBackups?: number;
  busyPatienceMs?: number;
  /** The store's clock; tests inject one to move time without sleeping. */
  clock?: () => number;
}

/**
 * Opens the provider tables on their own connection to errand's database (WAL, commits
 * made durable off the event loop, BEGIN IMMEDIATE for writes, as the operations store). Migrations are shared, so whichever
 * connection comes first applies them, once; a fresh database gets its journal head here too, so
 * `errand run` and `errand provider` work before any operation was ever submitted.
 */
export function openSqliteProviderStore(options: SqliteProviderStoreOptions): ProviderStore {
  const db = openDatabaseFile(options.path, options.busyTimeoutMs);
  try {
    migrate(db, MIGRATIONS, options.path, options.sealer, options.keepMigrationBackups);
    const ctx = createSqliteContext(db, options.sealer, options.clock ?? Date.now);
    db.immediate(() => ensureJournalHead(ctx));
    return new SqliteProviderStore(ctx, options.busyPatienceMs ?? 30_000);
  } catch (error) {
    db.close();
    throw error;
  }
}

class SqliteProviderStore extends SqliteTransactions implements ProviderStore {
  readBreaker(provider: string): Promise<BreakerRecord> {
    return this.read(() => readBreaker(this.ctx, provider));
  }
  listBreakers(): Promise<BreakerRecord[]> {
    return this.read(() => listBreakers(this.ctx));
  }
  writeBreaker(next: BreakerRecord, expectedRevision: number): Promise<boolean> {
    return this.write(() => writeBreaker(this.ctx, next, expectedRevision));
  }

  readProviderState(provider: string): Promise<ProviderStateRecord> {
    return this.read(() => selectProviderState(this.ctx, provider));
  }
  listProviderStates(): Promise<ProviderStateRecord[]> {
    return this.read(() => listProviderStates(this.ctx));
  }
  recordSmoke(result: SmokeResult): Promise<ProviderStateRecord> {
    return this.write(() => recordSmoke(this.ctx, result));
  }
  recordAuthFailure(provider: string, reason: string): Promise<ProviderStateRecord> {
    return this.write(() => recordAuthFailure(this.ctx, provider, reason));
  }
  recordBackoff(provider: string, untilMs: number, reason: string): Promise<void> {
    return this.write(() => recordBackoff(this.ctx, provider, untilMs, reason));
  }

  acquireSlot(request: SlotRequest): Promise<SlotGrant> {
    return this.write(() => acquireSlot(this.ctx, request));
  }
  releaseSlot(slotId: string, usage: UsageEntry | null): Promise<void> {
    return this.write(() => {
      // A slot that expired and was booked by another runner is gone: its reservation already stands for this session.
      if (releaseSlot(this.ctx, slotId) && usage !== null) insertUsage(this.ctx, usage);
    });
  }
  readUsage(provider: string, sinceMs: number): Promise<UsageTotals> {
    return this.read(() => {
      const now = this.ctx.clock();
      const booked = sumUsageSince(this.ctx, provider, sinceMs);
      const live = selectLiveSlots(this.ctx, provider, now);
      return {
        provider,
        sessions: booked.sessions,
        sessionMs: booked.sessionMs,
        amount: booked.amount,
        usd: booked.usd,
        liveSlots: live.live,
        reserved: live.reserved + selectExpiredReserved(this.ctx, provider, now),
        nextSlotExpiryMs: live.firstExpiryMs,
      };
    });
  }
}
