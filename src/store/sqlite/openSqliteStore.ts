import type { OperationListOrder } from "../rows/listOrder.js";
import { openDatabaseFile } from "./openDatabaseFile.js";
import type { JournalSealer } from "../../journal/createJournalSealer.js";
import type { CheckpointEntry, JournalEventRow, JournalHead, OperationTombstone } from "../../journal/journalTypes.js";
import type { Receipt } from "../../receipt/receiptTypes.js";
import type {
  ApprovalDecision,
  AttemptResolution,
  BlockedReceiptFactory,
  BoundaryResult,
  BreakerRecord,
  CancelResult,
  ClaimedOperation,
  ClaimRequest,
  CompactionReport,
  CreateOperationResult,
  DecideApprovalResult,
  ExpiredLease,
  FinishResult,
  HeldResult,
  IntegrityRefusal,
  JournalSnapshot,
  LeaseCheck,
  LeaseRef,
  NewOperation,
  OperationPhase,
  OperationRecord,
  OperationStateRow,
  OperationView,
  RecoveredLease,
  Store,
  StoreStatus,
  UnauthenticRow,
} from "../Store.js";
import { SqliteTransactions } from "./sqliteTransactions.js";
import { ensureJournalHead } from "./ensureJournalHead.js";
import { selectHead } from "./journalHeadSql.js";
import { readCheckpoint, writeCheckpoint } from "./queries/checkpoint.js";
import { AUTHENTIC_TABLES, unauthenticIn } from "../rows/authenticRows.js";
import { allRows } from "./authenticTableSql.js";
import { migrate } from "./migrate.js";
import { MIGRATIONS } from "./migrations.js";
import { listBreakers, readBreaker, writeBreaker } from "./queries/breakerSql.js";
import { cancelOperation } from "./queries/cancelOperation.js";
import { claimNext, nextQueuedMs } from "./queries/claimNext.js";
import { collapsePrefix, compactBatch, recordCompaction } from "./queries/compact.js";
import { createOperation } from "./queries/createOperation.js";
import { crossMutationBoundary } from "./queries/crossMutationBoundary.js";
import { decideApproval, expireApprovals } from "./queries/decideApproval.js";
import { listOperations, readOperationTask } from "./queries/listOperations.js";
import { finishAttempt } from "./queries/finishAttempt.js";
import { dropExpiredResults, holdResult, readHeldResult } from "./queries/heldResults.js";
import { countOperationEvents, readJournalChain, readJournalEvents, readTombstones } from "./queries/journalReadSql.js";
import { checkLease, renewLease } from "./queries/leaseSql.js";
import { readOperationEvents, readOperationStates } from "./queries/readOperationEvents.js";
import { readOperation } from "./queries/readOperation.js";
import { reopenOperation } from "./queries/reopenOperation.js";
import { recoverExpiredLeases } from "./queries/recoverExpiredLeases.js";
import { status } from "./queries/status.js";
import type { SqliteContext } from "./sqliteContext.js";
import { createSqliteContext } from "./sqliteContext.js";
import { openSqliteDatabase } from "./sqliteBinding.js";

export interface SqliteStoreOptions {
  /** The database file (created with its directory when absent). */
  path: string;
  sealer: JournalSealer;
  /** How long one statement waits for the write lock inside SQLite (ms); keep it short (see busyRetry). */
  busyTimeoutMs: number;
  /** Pre-migration copies a migration leaves beside the file, its own included (ERRAND_KEEP_MIGRATION_BACKUPS). Default 3. */
  keepMigrationBackups?: number;
  /** How long errand keeps retrying a locked write before it reports store_busy (ms). Default 30 s. */
  busyPatienceMs?: number;
  /** The store's clock; tests inject one to move time without sleeping. */
  clock?: () => number;
  /** Migrations to apply; tests pass a longer list to simulate a newer errand. */
  migrations?: typeof MIGRATIONS;
}

/** Compaction works in batches of this many operations, one short transaction each. */
const COMPACTION_BATCH = 200;

/**
 * Opens (creating and migrating when needed) the SQLite store: WAL so readers never block the
 * writer, every commit on disk before it is acknowledged or read here (fsynced off the event loop,
 * walGroupSync.ts) so an acknowledged submit or receipt survives power loss, a short busy
 * timeout so a waiting process does not freeze its own heartbeats, and BEGIN IMMEDIATE for every
 * transaction that writes, so a read-then-write never fails half way with SQLITE_BUSY.
 */
export function openSqliteStore(options: SqliteStoreOptions): Store {
  const db = openDatabaseFile(options.path, options.busyTimeoutMs);
  try {
    db.pragma("foreign_keys = ON");
    const version = migrate(db, options.migrations ?? MIGRATIONS, options.path, options.sealer, options.keepMigrationBackups);
    const ctx = createSqliteContext(db, options.sealer, options.clock ?? Date.now);
    db.immediate(() => ensureJournalHead(ctx));
    return new SqliteStore(ctx, version, options.busyPatienceMs ?? 30_000, options.path, options.busyTimeoutMs);
  } catch (error) {
    db.close();
    throw error;
  }
}

class SqliteStore extends SqliteTransactions implements Store {
  readonly backend = "sqlite";

  constructor(
    ctx: SqliteContext,
    private readonly version: number,
    patienceMs: number,
    private readonly path: string,
    private readonly busyTimeoutMs: number,
  ) {
    super(ctx, patienceMs);
  }

  schemaVersion(): Promise<number> {
    return Promise.resolve(this.version);
  }

  createOperation(input: NewOperation, quotaBytes: number): Promise<CreateOperationResult> {
    return this.write(() => createOperation(this.ctx, input, quotaBytes));
  }
  readOperation(operationId: string, onlySubmittedBy?: string): Promise<OperationView | undefined> {
    return this.read(() => readOperation(this.ctx, operationId, onlySubmittedBy));
  }
  readOperationEvents(operationId: string): Promise<JournalEventRow[]> {
    return this.read(() => readOperationEvents(this.ctx, operationId));
  }
  readOperationStates(afterOperationId: string, limit: number): Promise<OperationStateRow[]> {
    return this.read(() => readOperationStates(this.ctx, afterOperationId, limit));
  }

  claimNext(runnerId: string, leaseMs: number, onlyOperationId?: string): Promise<ClaimedOperation | undefined> {
    return this.write(() => claimNext(this.ctx, runnerId, leaseMs, onlyOperationId));
  }
  nextQueuedMs(): Promise<number | null> {
    return this.read(() => nextQueuedMs(this.ctx));
  }
  renewLease(lease: LeaseRef, leaseMs: number): Promise<LeaseCheck> {
    return this.write(() => renewLease(this.ctx, lease, leaseMs));
  }
  checkLease(lease: LeaseRef): Promise<LeaseCheck> {
    return this.read(() => checkLease(this.ctx, lease));
  }
  crossMutationBoundary(lease: LeaseRef): Promise<BoundaryResult> {
    return this.write(() => crossMutationBoundary(this.ctx, lease));
  }
  finishAttempt(lease: LeaseRef, resolve: (operation: OperationRecord) => AttemptResolution, next?: ClaimRequest): Promise<FinishResult> {
    return this.write(() => finishAttempt(this.ctx, lease, resolve, next));
  }
  recoverExpiredLeases(decide: (expired: ExpiredLease) => AttemptResolution, limit: number): Promise<RecoveredLease[]> {
    return this.write(() => recoverExpiredLeases(this.ctx, decide, limit));
  }

  takeIntegrityRefusals(): IntegrityRefusal[] {
    const refused = [...this.ctx.refusals.values()];
    this.ctx.refusals.clear();
    return refused;
  }
  reopenOperation(operationId: string, expectedRevision: number, extraAttempts: number, reason: string): Promise<OperationRecord | undefined> {
    return this.write(() => reopenOperation(this.ctx, operationId, expectedRevision, extraAttempts, reason));
  }
  holdResult(held: HeldResult): Promise<void> {
    return this.write(() => holdResult(this.ctx, held));
  }
  readHeldResult(operationId: string): Promise<HeldResult | undefined> {
    return this.read(() => readHeldResult(this.ctx, operationId));
  }
  dropExpiredResults(): Promise<number> {
    return this.write(() => dropExpiredResults(this.ctx));
  }

  cancelOperation(
    operationId: string,
    controlActionId: string,
    cancelledReceipt: (operation: OperationRecord, taskJson: string) => Receipt,
  ): Promise<CancelResult> {
    return this.write(() => cancelOperation(this.ctx, operationId, controlActionId, cancelledReceipt));
  }

  decideApproval(operationId: string, decision: ApprovalDecision, blockedReceipt: BlockedReceiptFactory): Promise<DecideApprovalResult> {
    return this.write(() => decideApproval(this.ctx, operationId, decision, blockedReceipt));
  }
  expireApprovals(blockedReceipt: BlockedReceiptFactory, limit: number): Promise<string[]> {
    return this.write(() => expireApprovals(this.ctx, blockedReceipt, limit));
  }
  listOperations(query: { phase?: OperationPhase; submittedBy?: string; limit: number; order?: OperationListOrder }): Promise<OperationRecord[]> {
    return this.read(() => listOperations(this.ctx, query));
  }
  readOperationTask(operationId: string): Promise<{ operation: OperationRecord; taskJson: string } | undefined> {
    return this.read(() => readOperationTask(this.ctx, operationId));
  }

  readBreaker(provider: string): Promise<BreakerRecord> {
    return this.read(() => readBreaker(this.ctx, provider));
  }
  listBreakers(): Promise<BreakerRecord[]> {
    return this.read(() => listBreakers(this.ctx));
  }
  writeBreaker(next: BreakerRecord, expectedRevision: number): Promise<boolean> {
    return this.write(() => writeBreaker(this.ctx, next, expectedRevision));
  }

  readJournalHead(): Promise<JournalHead | undefined> {
    return this.read(() => selectHead(this.ctx));
  }
  readJournalEvents(afterSeq: number, limit: number): Promise<JournalEventRow[]> {
    return this.read(() => readJournalEvents(this.ctx, afterSeq, limit));
  }
  readJournalChain(afterChainSeq: number, limit: number): Promise<JournalEventRow[]> {
    return this.read(() => readJournalChain(this.ctx, afterChainSeq, limit));
  }
  countOperationEvents(): Promise<number> {
    return this.read(() => countOperationEvents(this.ctx));
  }
  readTombstones(afterOperationId: string, limit: number): Promise<OperationTombstone[]> {
    return this.read(() => readTombstones(this.ctx, afterOperationId, limit));
  }
  readCheckpoint(afterOperationId: string, limit: number): Promise<CheckpointEntry[]> {
    return this.read(() => readCheckpoint(this.ctx, afterOperationId, limit));
  }
  writeCheckpoint(): Promise<number> {
    return this.write(() => writeCheckpoint(this.ctx));
  }
  findUnauthenticRows(): Promise<UnauthenticRow[]> {
    return this.read(() => AUTHENTIC_TABLES.flatMap((table) => unauthenticIn(this.ctx.sealer, table, allRows(this.ctx.db, table))));
  }
  async compact(cutoffMs: number): Promise<CompactionReport> {
    const report: CompactionReport = { operations: 0, eventBodies: 0, eventsRemoved: 0, bytesFreed: 0, storedBytes: 0 };
    for (;;) {
      const batch = await this.write(() => compactBatch(this.ctx, cutoffMs, COMPACTION_BATCH));
      report.operations += batch.operations;
      report.eventBodies += batch.eventBodies;
      report.eventsRemoved += batch.eventsRemoved;
      report.bytesFreed += batch.bytesFreed;
      if (batch.operations < COMPACTION_BATCH) break;
    }
    const folded = await this.write(() => collapsePrefix(this.ctx, cutoffMs));
    report.eventsRemoved += folded.eventsRemoved;
    report.bytesFreed += folded.bytesFreed;
    if (report.operations > 0 || report.eventsRemoved > 0) {
      await this.write(() =>
        recordCompaction(this.ctx, { cutoffMs, operations: report.operations, eventBodies: report.eventBodies, eventsRemoved: report.eventsRemoved }),
      );
    }
    // A compaction ends with a checkpoint, so the operations it left are committed to from here on.
    await this.writeCheckpoint();
    report.storedBytes = (await this.status()).storedBytes;
    return report;
  }

  /**
   * The snapshot is a read transaction on a connection of its own (read-only): in WAL mode it keeps
   * seeing the database as of its first read while this store's connection and other processes
   * write, and nothing else in this process can slip a statement into it between two awaits.
   */
  async readJournalSnapshot<T>(read: (source: JournalSnapshot) => Promise<T>): Promise<T> {
    const db = openSqliteDatabase(this.path, { readonly: true, fileMustExist: true, timeout: this.busyTimeoutMs });
    try {
      const ctx = createSqliteContext(db, this.ctx.sealer, this.ctx.clock);
      db.exec("BEGIN DEFERRED");
      return await read({
        readJournalHead: () => Promise.resolve(selectHead(ctx)),
        readJournalEvents: (afterSeq, limit) => Promise.resolve(readJournalEvents(ctx, afterSeq, limit)),
        readJournalChain: (afterChainSeq, limit) => Promise.resolve(readJournalChain(ctx, afterChainSeq, limit)),
        countOperationEvents: () => Promise.resolve(countOperationEvents(ctx)),
        readTombstones: (afterOperationId, limit) => Promise.resolve(readTombstones(ctx, afterOperationId, limit)),
        readCheckpoint: (afterOperationId, limit) => Promise.resolve(readCheckpoint(ctx, afterOperationId, limit)),
        readOperationStates: (afterOperationId, limit) => Promise.resolve(readOperationStates(ctx, afterOperationId, limit)),
        readOperationEvents: (operationId) => Promise.resolve(readOperationEvents(ctx, operationId)),
      });
    } finally {
      db.close();
    }
  }

  status(): Promise<StoreStatus> {
    return this.read(() => status(this.ctx, this.version));
  }
}
