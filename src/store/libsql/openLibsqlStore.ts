import type { OperationListOrder } from "../rows/listOrder.js";
import type { JournalSealer } from "../../journal/createJournalSealer.js";
import type { CheckpointEntry, JournalEventRow, JournalHead, OperationTombstone } from "../../journal/journalTypes.js";
import type { Receipt } from "../../receipt/receiptTypes.js";
import { AUTHENTIC_TABLES, unauthenticIn } from "../rows/authenticRows.js";
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
import { createLibsqlSchema } from "./createLibsqlSchema.js";
import { ensureJournalHead } from "./ensureJournalHead.js";
import { selectHead } from "./journalHead.js";
import type { LibsqlContext } from "./libsqlContext.js";
import { createLibsqlContext } from "./libsqlContext.js";
import type { LibsqlClientLike } from "./LibsqlClientLike.js";
import { statement } from "./LibsqlClientLike.js";
import { rowsIn } from "./libsqlRows.js";
import { listBreakers, readBreaker, writeBreaker } from "./queries/breakers.js";
import { cancelOperation } from "./queries/cancelOperation.js";
import { writeCheckpoint } from "./queries/checkpoint.js";
import { claimNext, nextQueuedMs } from "./queries/claimNext.js";
import { collapsePrefix, compactBatch, recordCompaction } from "./queries/compact.js";
import { createOperation } from "./queries/createOperation.js";
import { crossMutationBoundary } from "./queries/crossMutationBoundary.js";
import { decideApproval, expireApprovals } from "./queries/decideApproval.js";
import { finishAttempt, recoverExpiredLeases } from "./queries/finishAttempt.js";
import { dropExpiredResults, holdResult, readHeldResult } from "./queries/heldResults.js";
import type { JournalRead } from "./queries/journalReads.js";
import {
  checkpointRead,
  journalChainRead,
  journalEventsRead,
  operationEventCountRead,
  operationEventsRead,
  operationStatesRead,
  tombstonesRead,
} from "./queries/journalReads.js";
import { checkLease, renewLease } from "./queries/leases.js";
import { listOperations, readOperation, readOperationTask } from "./queries/readOperation.js";
import { reopenOperation } from "./queries/reopenOperation.js";
import { status } from "./queries/status.js";
import { readJournalSnapshot } from "./readJournalSnapshot.js";

export interface LibsqlStoreOptions {
  /** The client the store works through; the store owns it from here on and closes it (when it can be closed). */
  client: LibsqlClientLike;
  /** How the database is named in errors (its URL without credentials). */
  where: string;
  sealer: JournalSealer;
  /** The store's clock; tests inject one to move time without sleeping. Default: the process clock. */
  clock?: () => number;
  /** How long a store operation keeps retrying while the database is locked or contended before it reports store_busy (ms). Default 30 s. */
  busyPatienceMs?: number;
}

/** Compaction works in batches of this many operations, one batch each. */
const COMPACTION_BATCH = 200;

/**
 * Opens the operations store on a libSQL client (a local `file:` database, a Turso or sqld server,
 * Val Town's std/sqlite): creates the schema and the journal head on a new database, refuses one
 * written by a newer errand. Every store operation is one statement, one read batch, or a read, a
 * decision in src/core and one write batch guarded on what was read (batchGuard.ts), retried from
 * the read when the guard finds it changed (optimisticWrite.ts): the client needs no interactive
 * transaction. The clock is the process's, as on SQLite.
 */
export async function openLibsqlStore(options: LibsqlStoreOptions): Promise<Store> {
  const clock = options.clock ?? Date.now;
  try {
    const version = await createLibsqlSchema(options.client, options.where, clock());
    const ctx = createLibsqlContext(options.client, options.sealer, clock, options.busyPatienceMs ?? 30_000);
    await ensureJournalHead(ctx);
    return new LibsqlStore(ctx, version);
  } catch (error) {
    options.client.close?.();
    throw error;
  }
}

class LibsqlStore implements Store {
  readonly backend = "libsql";

  constructor(
    private readonly ctx: LibsqlContext,
    private readonly version: number,
  ) {}

  private async run<T>(read: JournalRead<T>): Promise<T> {
    return read.map(await this.ctx.client.execute(read.statement));
  }

  now(): Promise<number> {
    return Promise.resolve(this.ctx.clock());
  }
  schemaVersion(): Promise<number> {
    return Promise.resolve(this.version);
  }
  close(): Promise<void> {
    this.ctx.client.close?.();
    return Promise.resolve();
  }

  createOperation(input: NewOperation, quotaBytes: number): Promise<CreateOperationResult> {
    return createOperation(this.ctx, input, quotaBytes);
  }
  readOperation(operationId: string, onlySubmittedBy?: string): Promise<OperationView | undefined> {
    return readOperation(this.ctx, operationId, onlySubmittedBy);
  }
  readOperationEvents(operationId: string): Promise<JournalEventRow[]> {
    return this.run(operationEventsRead(operationId));
  }
  readOperationStates(afterOperationId: string, limit: number): Promise<OperationStateRow[]> {
    return this.run(operationStatesRead(afterOperationId, limit));
  }

  claimNext(runnerId: string, leaseMs: number, onlyOperationId?: string): Promise<ClaimedOperation | undefined> {
    return claimNext(this.ctx, runnerId, leaseMs, onlyOperationId);
  }
  nextQueuedMs(): Promise<number | null> {
    return nextQueuedMs(this.ctx);
  }
  renewLease(lease: LeaseRef, leaseMs: number): Promise<LeaseCheck> {
    return renewLease(this.ctx, lease, leaseMs);
  }
  checkLease(lease: LeaseRef): Promise<LeaseCheck> {
    return checkLease(this.ctx, lease);
  }
  crossMutationBoundary(lease: LeaseRef): Promise<BoundaryResult> {
    return crossMutationBoundary(this.ctx, lease);
  }
  finishAttempt(lease: LeaseRef, resolve: (operation: OperationRecord) => AttemptResolution, next?: ClaimRequest): Promise<FinishResult> {
    return finishAttempt(this.ctx, lease, resolve, next);
  }
  recoverExpiredLeases(decide: (expired: ExpiredLease) => AttemptResolution, limit: number): Promise<RecoveredLease[]> {
    return recoverExpiredLeases(this.ctx, decide, limit);
  }
  takeIntegrityRefusals(): IntegrityRefusal[] {
    const refused = [...this.ctx.refusals.values()];
    this.ctx.refusals.clear();
    return refused;
  }
  reopenOperation(operationId: string, expectedRevision: number, extraAttempts: number, reason: string): Promise<OperationRecord | undefined> {
    return reopenOperation(this.ctx, operationId, expectedRevision, extraAttempts, reason);
  }

  holdResult(held: HeldResult): Promise<void> {
    return holdResult(this.ctx, held);
  }
  readHeldResult(operationId: string): Promise<HeldResult | undefined> {
    return readHeldResult(this.ctx, operationId);
  }
  dropExpiredResults(): Promise<number> {
    return dropExpiredResults(this.ctx);
  }

  cancelOperation(
    operationId: string,
    controlActionId: string,
    cancelledReceipt: (operation: OperationRecord, taskJson: string) => Receipt,
  ): Promise<CancelResult> {
    return cancelOperation(this.ctx, operationId, controlActionId, cancelledReceipt);
  }
  decideApproval(operationId: string, decision: ApprovalDecision, blockedReceipt: BlockedReceiptFactory): Promise<DecideApprovalResult> {
    return decideApproval(this.ctx, operationId, decision, blockedReceipt);
  }
  expireApprovals(blockedReceipt: BlockedReceiptFactory, limit: number): Promise<string[]> {
    return expireApprovals(this.ctx, blockedReceipt, limit);
  }
  listOperations(query: { phase?: OperationPhase; submittedBy?: string; limit: number; order?: OperationListOrder }): Promise<OperationRecord[]> {
    return listOperations(this.ctx, query);
  }
  readOperationTask(operationId: string): Promise<{ operation: OperationRecord; taskJson: string } | undefined> {
    return readOperationTask(this.ctx, operationId);
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

  readJournalHead(): Promise<JournalHead | undefined> {
    return selectHead(this.ctx);
  }
  readJournalEvents(afterSeq: number, limit: number): Promise<JournalEventRow[]> {
    return this.run(journalEventsRead(afterSeq, limit));
  }
  readJournalChain(afterChainSeq: number, limit: number): Promise<JournalEventRow[]> {
    return this.run(journalChainRead(afterChainSeq, limit));
  }
  countOperationEvents(): Promise<number> {
    return this.run(operationEventCountRead());
  }
  readTombstones(afterOperationId: string, limit: number): Promise<OperationTombstone[]> {
    return this.run(tombstonesRead(afterOperationId, limit));
  }
  readCheckpoint(afterOperationId: string, limit: number): Promise<CheckpointEntry[]> {
    return this.run(checkpointRead(afterOperationId, limit));
  }
  writeCheckpoint(): Promise<number> {
    return writeCheckpoint(this.ctx);
  }
  async findUnauthenticRows(): Promise<UnauthenticRow[]> {
    const results = await this.ctx.client.batch(
      AUTHENTIC_TABLES.map((table) => statement(`SELECT * FROM ${table.table}`)),
      "read",
    );
    return AUTHENTIC_TABLES.flatMap((table, i) => unauthenticIn(this.ctx.sealer, table, rowsIn<Record<string, unknown>>(results[i])));
  }
  async compact(cutoffMs: number): Promise<CompactionReport> {
    const report: CompactionReport = { operations: 0, eventBodies: 0, eventsRemoved: 0, bytesFreed: 0, storedBytes: 0 };
    for (;;) {
      const batch = await compactBatch(this.ctx, cutoffMs, COMPACTION_BATCH);
      report.operations += batch.operations;
      report.eventBodies += batch.eventBodies;
      report.eventsRemoved += batch.eventsRemoved;
      report.bytesFreed += batch.bytesFreed;
      if (batch.operations < COMPACTION_BATCH) break;
    }
    const folded = await collapsePrefix(this.ctx, cutoffMs);
    report.eventsRemoved += folded.eventsRemoved;
    report.bytesFreed += folded.bytesFreed;
    if (report.operations > 0 || report.eventsRemoved > 0) {
      await recordCompaction(this.ctx, { cutoffMs, operations: report.operations, eventBodies: report.eventBodies, eventsRemoved: report.eventsRemoved });
    }
    // A compaction ends with a checkpoint, so the operations it left are committed to from here on.
    await this.writeCheckpoint();
    report.storedBytes = (await this.status()).storedBytes;
    return report;
  }
  readJournalSnapshot<T>(read: (source: JournalSnapshot) => Promise<T>): Promise<T> {
    return readJournalSnapshot(this.ctx, read);
  }
  status(): Promise<StoreStatus> {
    return status(this.ctx, this.version);
  }
}
