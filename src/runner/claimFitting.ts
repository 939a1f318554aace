import { decideRequestFit } from "../core/decideRequestFit.js";
import type { ClaimedOperation, OperationRecord } from "../store/Store.js";
import { readStoredTask } from "./readStoredTask.js";
import type { RunnerDeps, UnfitOperation } from "./runnerTypes.js";

/** Queued operations looked at per claim, oldest due first (the store lists them newest first). */
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
  for (const operation of await dueCandidates(deps, now)) {
    if (unfit.some((known) => known.operationId === operation.operationId)) continue;
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
  return undefined;
}

/** Due queued operations in claim order (run_after, then creation, then id), or only deps.onlyOperationId's. */
async function dueCandidates(deps: RunnerDeps, now: number): Promise<OperationRecord[]> {
  const listed =
    deps.onlyOperationId === undefined
      ? await deps.store.listOperations({ phase: "queued", limit: CANDIDATES })
      : [(await deps.store.readOperationTask(deps.onlyOperationId))?.operation].filter((operation) => operation !== undefined);
  return listed
    .filter((operation) => operation.phase === "queued" && operation.runAfterMs <= now)
    .sort((a, b) => a.runAfterMs - b.runAfterMs || a.createdMs - b.createdMs || (a.operationId < b.operationId ? -1 : 1));
}
