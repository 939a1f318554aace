import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import { ConfigError } from "../config/runtimeConfig.js";
import { verifyJournal } from "../journal/verifyJournal.js";
import { verifyKeyHandovers } from "../journal/verifyKeyHandovers.js";
import type { JournalVerdict } from "../journal/verifyJournal.js";
import { createCheckpointSchedule } from "./checkpointSchedule.js";
import { runQueue } from "../runner/runQueue.js";
import type { RunnerDeps } from "../runner/runnerTypes.js";
import { startWorkerPool } from "../runner/workerPool.js";
import { createOperationSignals } from "./operationSignals.js";
import { createHeldResults } from "./heldResults.js";
import { createArtifactKeeping } from "./artifactKeeping.js";
import { readArtifact } from "./readArtifact.js";
import { approvalRequest } from "./approvalRequest.js";
import { collectOperation } from "./collectOperation.js";
import { decideApproval, expireApprovals } from "./decideApproval.js";
import { listOperations, readOperationItem } from "./listOperations.js";
import { controlOperation } from "./controlOperation.js";
import { inspectOperation } from "./inspectOperation.js";
import type { OperationsServiceOptions, ServiceContext } from "./serviceContext.js";
import type { OperationsService } from "./serviceTypes.js";
import { submitOperation } from "./submitOperation.js";
import { journalIdentity } from "./journalAccess.js";

/** Verifies the journal on one snapshot, so workers and submits may go on writing meanwhile. */
function verifyLiveJournal(ctx: ServiceContext): Promise<JournalVerdict> {
  return ctx.store.readJournalSnapshot((source) => verifyJournal(source, ctx.sealer));
}

/** A runner id that tells processes apart in leases and events: host, pid and a random suffix. */
export function defaultRunnerId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
}

/** Refuses to run anything without an executor or on a journal that does not authenticate. */
async function readyToRun(ctx: ServiceContext): Promise<void> {
  if (ctx.execute === undefined) throw new ConfigError("This errand process has no executor, so it cannot run the queue.");
  const identity = await journalIdentity(ctx);
  if (!identity.ok) throw new ConfigError(identity.message);
}

/** What the runner is given, shared by runQueue and the worker pool. */
function runnerDeps(ctx: ServiceContext, runnerId: string): RunnerDeps {
  const artifacts = ctx.artifacts;
  if (ctx.execute === undefined) throw new ConfigError("This errand process has no executor, so it cannot run the queue.");
  return {
    store: ctx.store,
    execute: ctx.execute,
    digestKey: ctx.digestKey,
    config: ctx.config,
    runnerId,
    onEvent: (event) => {
      ctx.onRunnerEvent?.(event);
      // The receipt is committed when "finished" is reported: a waiting collect may answer now.
      if (event.kind === "finished") ctx.signals.notify(event.operationId);
    },
    holdResult: (operationId, digest, attempt, ephemeral) => ctx.held.hold(operationId, digest, attempt, ephemeral),
    ...(artifacts === undefined
      ? {}
      : { keepArtifacts: (operationId, digest, attempt, retention, taken) => artifacts.keep(operationId, digest, attempt, retention, taken) }),
  };
}

/**
 * Builds the operations service over an opened store. Every method returns a fresh handle, or a
 * failure with an error code and a message for whoever must act; only programming errors throw.
 */
export function createOperationsService(options: OperationsServiceOptions): OperationsService {
  const ctx: ServiceContext = {
    ...options,
    held: createHeldResults(options.store, options.digestKey, options.config.resultTtlMs),
    ...(options.artifactStore === undefined ? {} : { artifacts: createArtifactKeeping(options.artifactStore, options.digestKey, options.config.resultTtlMs) }),
    signals: createOperationSignals(),
  };
  const runnerId = options.runnerId ?? defaultRunnerId();
  return {
    submit: (input, as) => submitOperation(ctx, input, as),
    inspect: (operationId, as) => inspectOperation(ctx, operationId, as),
    collect: (operationId, collectOptions, as) => collectOperation(ctx, operationId, collectOptions, as),
    readArtifact: (operationId, index, as) => readArtifact(ctx, operationId, index, as),
    control: (operationId, request, as) => controlOperation(ctx, operationId, request, as),
    async runQueue(queueOptions) {
      await readyToRun(ctx);
      await expireApprovals(ctx);
      return runQueue(runnerDeps(ctx, runnerId), queueOptions);
    },
    async startWorkers(poolOptions = {}) {
      if (ctx.workers !== undefined) throw new Error("This service already runs a worker pool.");
      await readyToRun(ctx);
      const checkpoint = createCheckpointSchedule(ctx.store);
      const pool = startWorkerPool({
        deps: runnerDeps(ctx, runnerId),
        concurrency: poolOptions.concurrency ?? ctx.config.concurrency,
        housekeeping: async () => {
          await expireApprovals(ctx);
          await ctx.held.dropExpired();
          await ctx.artifacts?.dropExpired();
          await checkpoint();
        },
        ...(poolOptions.onError === undefined ? {} : { onError: poolOptions.onError }),
      });
      ctx.workers = pool;
      return {
        wake: () => pool.wake(),
        get active() {
          return pool.active;
        },
        settle: (timeoutMs) => pool.settle(timeoutMs),
        async close(graceMs) {
          const result = await pool.close(graceMs);
          if (ctx.workers === pool) delete ctx.workers;
          return result;
        },
      };
    },
    wake() {
      ctx.workers?.wake();
    },
    async status() {
      const [store, breakers] = await Promise.all([ctx.store.status(), ctx.store.listBreakers()]);
      return {
        store: { ...store, backend: ctx.store.backend },
        journal: { seq: store.journalSeq, storedBytes: store.storedBytes, quotaBytes: ctx.config.journalQuotaBytes },
        breakers,
      };
    },
    verifyJournal: () => verifyLiveJournal(ctx),
    checkpointJournal: () => ctx.store.writeCheckpoint(),
    findUnauthenticRows: () => ctx.store.findUnauthenticRows(),
    keyRotations: (formerKeys) => verifyKeyHandovers(ctx.store, formerKeys),
    approvalRequest: (operationId) => approvalRequest(ctx, operationId),
    decideApproval: (operationId, decision) => decideApproval(ctx, operationId, decision),
    expireApprovals: () => expireApprovals(ctx),
    listOperations: (query, as) => listOperations(ctx, query, as),
    operationItem: (operationId, as) => readOperationItem(ctx, operationId, as),
    async compactJournal({ olderThanMs }) {
      if (!Number.isSafeInteger(olderThanMs) || olderThanMs < 0)
        return { ok: false, code: "invalid_number", message: "olderThanMs must be a non-negative integer (milliseconds)." };
      const verdict = await verifyLiveJournal(ctx);
      if (!verdict.ok) {
        return {
          ok: false,
          code: "journal_tampered",
          message: `The journal does not verify (${verdict.fault} at event ${verdict.seq ?? "-"}); compaction would destroy the evidence, so nothing was compacted.`,
        };
      }
      const report = await ctx.store.compact((await ctx.store.now()) - olderThanMs);
      // The compacted operations' rows are gone; their artifacts go with them (and expired ones).
      const artifactsDeleted = (await ctx.artifacts?.dropExpired()) ?? 0;
      return { ok: true, ...report, artifactsDeleted };
    },
  };
}
