import type { OperationListOrder } from "../rows/listOrder.js";
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
import { selectHead } from "./journalHeadPg.js";
import { migratePostgres } from "./migratePostgres.js";
import type { PgContext } from "./pgContext.js";
import { PgTransactions } from "./pgTransactions.js";
import { createPostgresPool } from "./postgresConnection.js";
import type { PostgresMigration } from "./postgresMigrations.js";
import { POSTGRES_MIGRATIONS } from "./postgresMigrations.js";
import { listBreakers, readBreaker, writeBreaker } from "./queries/breakers.js";
import { cancelOperation } from "./queries/cancelOperation.js";
import { claimNext, nextQueuedMs } from "./queries/claimNext.js";
import { collapsePrefix, compactBatch, recordCompaction } from "./queries/compact.js";
import { createOperation } from "./queries/createOperation.js";
import { decideApproval, expireApprovals } from "./queries/decideApproval.js";
import { finishAttempt, recoverExpiredLeases } from "./queries/finishAttempt.js";
import { dropExpiredResults, holdResult, readHeldResult } from "./queries/heldResults.js";
import { countOperationEvents, readJournalChain, readJournalEvents, readTombstones } from "./queries/journalRead.js";
import { readCheckpoint, writeCheckpoint } from "./queries/checkpoint.js";
import { AUTHENTIC_TABLES, unauthenticIn } from "../rows/authenticRows.js";
import { allRows } from "./authenticTablePg.js";
import { checkLease, crossMutationBoundary, renewLease } from "./queries/leases.js";
import { listOperations, readOperation, readOperationEvents, readOperationStates, readOperationTask } from "./queries/readOperation.js";
import { reopenOperation } from "./queries/reopenOperation.js";
import { status } from "./queries/status.js";

export interface PostgresStoreOptions {
  /** postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (ERRAND_DATABASE_URL). */
  connectionString: string;
  sealer: JournalSealer;
  /** Work in this schema instead of public (tests give each store its own). */
  schema?: string;
  /** Tests inject a clock to move time without sleeping; by default the database's now() is the clock. */
  clock?: () => number;
  /** Migrations to apply; tests pass a longer list to simulate a newer errand. */
  migrations?: readonly PostgresMigration[];
  /** How long errand keeps retrying a transaction PostgreSQL aborted (deadlock, serialization) before it reports store_busy (ms). Default 30 s. */
  busyPatienceMs?: number;
  /** Connections this store keeps at most (default 10). */
  maxConnections?: number;
}

/** Compaction works in batches of this many operations, one short transaction each. */
const COMPACTION_BATCH = 200;

/** What every PostgreSQL store opener shares: the pool, the context, and the migration every first use waits for. */
export function openPostgresParts(options: Omit<PostgresStoreOptions, "clock"> & { clock?: () => number }): {
  pool: ReturnType<typeof createPostgresPool>;
  ctx: PgContext;
  ready: Promise<number>;
} {
  const pool = createPostgresPool({
    connectionString: options.connectionString,
    ...(options.schema === undefined ? {} : { schema: options.schema }),
    ...(options.maxConnections === undefined ? {} : { max: options.maxConnections }),
  });
  const ctx: PgContext = { sealer: options.sealer, clock: options.clock, refusals: new Map(), rowRefusals: new Map() };
  const ready = migratePostgres(pool, options.migrations ?? POSTGRES_MIGRATIONS, options.sealer, options.connectionString, options.schema);
  return { pool, ctx, ready };
}

/**
 * Opens the PostgreSQL store: many runner processes on many machines share one database. Claims
 * lock with FOR UPDATE SKIP LOCKED, leases and retry delays are timed on the database's now(),
 * every write of an attempt is fenced by its lease token, and every change of an operation is the
 * transition operationTransitions.ts decides, persisted with its sealed journal event in the same
 * transaction onto the operation's own chain (src/journal: the same MACs, chains and head as SQLite).
 */
export function openPostgresStore(options: PostgresStoreOptions): Store {
  const { pool, ctx, ready } = openPostgresParts(options);
  return new PostgresStore(pool, ctx, ready, options.connectionString, options.busyPatienceMs ?? 30_000);
}

class PostgresStore extends PgTransactions implements Store {
  readonly backend = "postgres";

  schemaVersion(): Promise<number> {
    return this.ready;
  }

  createOperation(input: NewOperation, quotaBytes: number): Promise<CreateOperationResult> {
    return this.write((tx) => createOperation(tx, input, quotaBytes));
  }
  readOperation(operationId: string, onlySubmittedBy?: string): Promise<OperationView | undefined> {
    return this.read((tx) => readOperation(tx, operationId, onlySubmittedBy));
  }
  readOperationEvents(operationId: string): Promise<JournalEventRow[]> {
    return this.read((tx) => readOperationEvents(tx, operationId));
  }
  readOperationStates(afterOperationId: string, limit: number): Promise<OperationStateRow[]> {
    return this.read((tx) => readOperationStates(tx, afterOperationId, limit));
  }

  claimNext(runnerId: string, leaseMs: number, onlyOperationId?: string): Promise<ClaimedOperation | undefined> {
    return this.write((tx) => claimNext(tx, runnerId, leaseMs, onlyOperationId));
  }
  nextQueuedMs(): Promise<number | null> {
    return this.read((tx) => nextQueuedMs(tx));
  }
  renewLease(lease: LeaseRef, leaseMs: number): Promise<LeaseCheck> {
    return this.write((tx) => renewLease(tx, lease, leaseMs));
  }
  checkLease(lease: LeaseRef): Promise<LeaseCheck> {
    return this.read((tx) => checkLease(tx, lease));
  }
  crossMutationBoundary(lease: LeaseRef): Promise<BoundaryResult> {
    return this.write((tx) => crossMutationBoundary(tx, lease));
  }
  finishAttempt(lease: LeaseRef, resolve: (operation: OperationRecord) => AttemptResolution, next?: ClaimRequest): Promise<FinishResult> {
    return this.write((tx) => finishAttempt(tx, lease, resolve, next));
  }
  recoverExpiredLeases(decide: (expired: ExpiredLease) => AttemptResolution, limit: number): Promise<RecoveredLease[]> {
    return this.write((tx) => recoverExpiredLeases(tx, decide, limit));
  }

  takeIntegrityRefusals(): IntegrityRefusal[] {
    const refused = [...this.ctx.refusals.values()];
    this.ctx.refusals.clear();
    return refused;
  }
  reopenOperation(operationId: string, expectedRevision: number, extraAttempts: number, reason: string): Promise<OperationRecord | undefined> {
    return this.write((tx) => reopenOperation(tx, operationId, expectedRevision, extraAttempts, reason));
  }
  holdResult(held: HeldResult): Promise<void> {
    return this.write((tx) => holdResult(tx, held));
  }
  readHeldResult(operationId: string): Promise<HeldResult | undefined> {
    return this.read((tx) => readHeldResult(tx, operationId));
  }
  dropExpiredResults(): Promise<number> {
    return this.write((tx) => dropExpiredResults(tx));
  }

  cancelOperation(
    operationId: string,
    controlActionId: string,
    cancelledReceipt: (operation: OperationRecord, taskJson: string) => Receipt,
  ): Promise<CancelResult> {
    return this.write((tx) => cancelOperation(tx, operationId, controlActionId, cancelledReceipt));
  }
  decideApproval(operationId: string, decision: ApprovalDecision, blockedReceipt: BlockedReceiptFactory): Promise<DecideApprovalResult> {
    return this.write((tx) => decideApproval(tx, operationId, decision, blockedReceipt));
  }
  expireApprovals(blockedReceipt: BlockedReceiptFactory, limit: number): Promise<string[]> {
    return this.write((tx) => expireApprovals(tx, blockedReceipt, limit));
  }
  listOperations(query: { phase?: OperationPhase; submittedBy?: string; limit: number; order?: OperationListOrder }): Promise<OperationRecord[]> {
    return this.read((tx) => listOperations(tx, query));
  }
  readOperationTask(operationId: string): Promise<{ operation: OperationRecord; taskJson: string } | undefined> {
    return this.read((tx) => readOperationTask(tx, operationId));
  }

  readBreaker(provider: string): Promise<BreakerRecord> {
    return this.single((tx) => readBreaker(tx, provider));
  }
  listBreakers(): Promise<BreakerRecord[]> {
    return this.read((tx) => listBreakers(tx));
  }
  writeBreaker(next: BreakerRecord, expectedRevision: number): Promise<boolean> {
    return this.write((tx) => writeBreaker(tx, next, expectedRevision));
  }

  readJournalHead(): Promise<JournalHead | undefined> {
    return this.read((tx) => selectHead(tx));
  }
  readJournalEvents(afterSeq: number, limit: number): Promise<JournalEventRow[]> {
    return this.read((tx) => readJournalEvents(tx, afterSeq, limit));
  }
  readJournalChain(afterChainSeq: number, limit: number): Promise<JournalEventRow[]> {
    return this.read((tx) => readJournalChain(tx, afterChainSeq, limit));
  }
  countOperationEvents(): Promise<number> {
    return this.read((tx) => countOperationEvents(tx));
  }
  readTombstones(afterOperationId: string, limit: number): Promise<OperationTombstone[]> {
    return this.read((tx) => readTombstones(tx, afterOperationId, limit));
  }
  readCheckpoint(afterOperationId: string, limit: number): Promise<CheckpointEntry[]> {
    return this.read((tx) => readCheckpoint(tx, afterOperationId, limit));
  }
  writeCheckpoint(): Promise<number> {
    return this.write((tx) => writeCheckpoint(tx));
  }
  findUnauthenticRows(): Promise<UnauthenticRow[]> {
    return this.read(async (tx) => {
      const found: UnauthenticRow[] = [];
      for (const table of AUTHENTIC_TABLES) found.push(...unauthenticIn(tx.ctx.sealer, table, await allRows(tx, table)));
      return found;
    });
  }
  async compact(cutoffMs: number): Promise<CompactionReport> {
    const report: CompactionReport = { operations: 0, eventBodies: 0, eventsRemoved: 0, bytesFreed: 0, storedBytes: 0 };
    for (;;) {
      const batch = await this.write((tx) => compactBatch(tx, cutoffMs, COMPACTION_BATCH));
      report.operations += batch.operations;
      report.eventBodies += batch.eventBodies;
      report.eventsRemoved += batch.eventsRemoved;
      report.bytesFreed += batch.bytesFreed;
      if (batch.operations < COMPACTION_BATCH) break;
    }
    const folded = await this.write((tx) => collapsePrefix(tx, cutoffMs));
    report.eventsRemoved += folded.eventsRemoved;
    report.bytesFreed += folded.bytesFreed;
    if (report.operations > 0 || report.eventsRemoved > 0) {
      await this.write((tx) =>
        recordCompaction(tx, { cutoffMs, operations: report.operations, eventBodies: report.eventBodies, eventsRemoved: report.eventsRemoved }),
      );
    }
    // A compaction ends with a checkpoint, so the operations it left are committed to from here on.
    await this.writeCheckpoint();
    report.storedBytes = (await this.status()).storedBytes;
    return report;
  }

  /** One REPEATABLE READ, READ ONLY transaction holds the snapshot for every read `read` makes. */
  readJournalSnapshot<T>(read: (source: JournalSnapshot) => Promise<T>): Promise<T> {
    return this.read((tx) =>
      read({
        readJournalHead: () => selectHead(tx),
        readJournalEvents: (afterSeq, limit) => readJournalEvents(tx, afterSeq, limit),
        readJournalChain: (afterChainSeq, limit) => readJournalChain(tx, afterChainSeq, limit),
        countOperationEvents: () => countOperationEvents(tx),
        readTombstones: (afterOperationId, limit) => readTombstones(tx, afterOperationId, limit),
        readCheckpoint: (afterOperationId, limit) => readCheckpoint(tx, afterOperationId, limit),
        readOperationStates: (afterOperationId, limit) => readOperationStates(tx, afterOperationId, limit),
        readOperationEvents: (operationId) => readOperationEvents(tx, operationId),
      }),
    );
  }

  async status(): Promise<StoreStatus> {
    const version = await this.ready;
    return this.read((tx) => status(tx, version));
  }
}
