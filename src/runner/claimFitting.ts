import { decideRequestFit } from "../core/decideRequestFit.js";
import type { ClaimedOperation, OperationRecord } from "../store/Store.js";
import { readStoredTask } from "./readStoredTask.js";
import type { RunnerDeps, UnfitOperation } from "./runnerTypes.js";

/** Queued operations looked at per claim besides the ones this pass already found too long: in claim order (due first, then oldest). */
const CANDIDATES = 200;

/**
 * Claims the oldest due queued operation whose longest possible attempt ends by `deadlineMs` (the
 * process clock; core/decideRequestFit), or nothing. One that does not fit is left queued, untouched
 * (no attempt is counted), and added to `unfit` once. The task's budget is read from its stored
 * document before the claim; the claim itself (Store.claimNext for that one operation) checks the row
 * against its journal as every claim does, and the runner checks the document against its digest
 * before it runs, so a document edited to look short is claimed and then refused, never run.
 */
export async function claimFitting(deps: RunnerDeps, deadlineMs: number, unfit: UnfitOperation[]): Promise<ClaimedOperation | undefined> {
  const now = await deps.store.now();
  // Each look reads past the operations this pass already found too long, so a run of long tasks at
  // the front of the queue never hides a short one behind them; it ends when a look finds nothing new.
  for (;;) {
    const { operations, more } = await dueCandidates(deps, now, unfit.length);
    let looked = 0;
    for (const operation of operations) {
      if (unfit.some((known) => known.operationId === operation.operationId)) continue;
      looked += 1;
      const stored = await deps.store.readOperationTask(operation.operationId);
      if (stored === undefined) continue;
      const fit = decideRequestFit(readStoredTask(stored.taskJson)?.timeouts?.taskMs, deps.config.browserTimeoutMs, deadlineMs - Date.now());
      if (fit.runs === "queued") {
        unfit.push({ operationId: operation.operationId, worstCaseMs: fit.worstCaseMs });
        continue;
      }
      const claimed = await deps.store.claimNext(deps.runnerId, deps.config.leaseMs, operation.operationId);
      if (claimed !== undefined) return claimed;
    }
    if (!more || looked === 0) return undefined;
  }
}

/**
 * Due queued operations in claim order (run_after, then creation, then id), reading CANDIDATES past
 * the `knownUnfit` this pass set aside, and whether the store may hold more; or only
 * deps.onlyOperationId's.
 */
async function dueCandidates(deps: RunnerDeps, now: number, knownUnfit: number): Promise<{ operations: OperationRecord[]; more: boolean }> {
  if (deps.onlyOperationId !== undefined) {
    const only = (await deps.store.readOperationTask(deps.onlyOperationId))?.operation;
    return { operations: only !== undefined && only.phase === "queued" && only.runAfterMs <= now ? [only] : [], more: false };
  }
  const limit = CANDIDATES + knownUnfit;
  const listed = await deps.store.listOperations({ phase: "queued", limit, order: "claim" });
  return { operations: listed.filter((operation) => operation.runAfterMs <= now), more: listed.length === limit };
}
