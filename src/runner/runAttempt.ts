import type { AttemptContext, AttemptOutcome } from "../executor/executeTaskTypes.js";
import type { ErrorCode } from "../errors/errorCodes.js";
import type { AttemptEnd } from "../receipt/decideStatus.js";
import type { EphemeralEvidence, Receipt } from "../receipt/receiptTypes.js";
import type { AttemptResolution, ClaimedOperation, FinishResult, OperationRecord } from "../store/Store.js";
import { requestDigest } from "../task/requestDigest.js";
import type { Task } from "../task/taskTypes.js";
import { AttemptStop } from "./attemptStop.js";
import type { LeaseLoss } from "./attemptStop.js";
import { decideExpiredLease } from "./decideExpiredLease.js";
import { decideAttempt, phaseForStatus } from "./decideAttempt.js";
import { startLeaseKeeper } from "./leaseKeeper.js";
import { readStoredTask } from "./readStoredTask.js";
import type { AttemptReport, RunnerDeps } from "./runnerTypes.js";
import { synthesizeReceipt } from "./synthesizeReceipt.js";
import { errorMessage } from "../errors/errorMessage.js";
import { attemptBudgetMs, attemptGraceMs } from "../core/attemptTime.js";

/**
 * Asked just before an attempt is resolved: whether the runner wants another operation, which is
 * then claimed in the same transaction.
 */
export type WantsNext = () => Promise<boolean>;

export interface AttemptRun {
  report: AttemptReport;
  /** The next operation, claimed together with this attempt's resolution (see Store.finishAttempt). */
  next: ClaimedOperation | undefined;
}

/**
 * Runs one claimed attempt to its end: checks the stored task against its digest, keeps the lease
 * alive while the executor works, records the mutation
 * boundary durably before the executor may cross it, and resolves the attempt with a write fenced
 * by the lease token. A runner whose lease was taken by another writes nothing; one whose lease ran
 * out before it could renew it stops the attempt (before the boundary, if not yet crossed) and ends
 * it as lease recovery would; both report "lease_lost".
 */
export async function runAttempt(deps: RunnerDeps, claimed: ClaimedOperation, wantsNext: WantsNext = () => Promise.resolve(false)): Promise<AttemptRun> {
  const { store, config } = deps;
  const { operation, lease, attempt } = claimed;
  const startedAt = new Date();
  const finish = async (resolve: Parameters<typeof store.finishAttempt>[1]): Promise<FinishResult> =>
    store.finishAttempt(
      lease,
      resolve,
      (await wantsNext())
        ? { runnerId: deps.runnerId, leaseMs: config.leaseMs, ...(deps.onlyOperationId === undefined ? {} : { onlyOperationId: deps.onlyOperationId }) }
        : undefined,
    );

  const task = readStoredTask(claimed.taskJson);
  // The risk the runner decides from (retry, UNCERTAIN) must be the one the digest vouches for.
  if (task === null || requestDigest(deps.digestKey, task) !== operation.requestDigest || task.risk !== operation.risk) {
    return finishWithout(
      deps,
      claimed,
      finish,
      task,
      { kind: "untouched" },
      "journal_tampered",
      "The stored task no longer matches the request digest it was submitted with, so it was not run. Inspect the journal (errand journal verify).",
      startedAt,
    );
  }

  // The provider a synthesized receipt names before the router chose one: the task's own choice, if any.
  const provider = task.provider === "auto" ? "" : task.provider;

  const controller = new AbortController();
  const keeper = startLeaseKeeper(store, lease, {
    leaseMs: config.leaseMs,
    heartbeatMs: config.heartbeatMs,
    cancelPollMs: config.cancelPollMs,
    controller,
    onStoreError: (message) => deps.onEvent?.({ kind: "store_error", operationId: operation.operationId, message }),
  });
  // The bounds decideRequestFit counts on (core/attemptTime): abort one grace past the budget, abandon one grace later.
  const budgetMs = attemptBudgetMs(task.timeouts?.taskMs, config.browserTimeoutMs);
  const grace = attemptGraceMs(budgetMs);
  const overrun = setTimeout(() => controller.abort(new AttemptStop("timeout", `The attempt ran past its ${budgetMs} ms budget.`)), budgetMs + grace);
  let abandonTimer: NodeJS.Timeout | undefined;
  const abandoned = new Promise<"abandoned">((resolve) => {
    abandonTimer = setTimeout(() => resolve("abandoned"), budgetMs + 2 * grace);
  });

  const context: AttemptContext = {
    requestDigest: operation.requestDigest,
    attempt,
    signal: controller.signal,
    beforeMutationBoundary: async () => {
      if (controller.signal.aborted) throw stopReason(controller.signal);
      const result = await store.crossMutationBoundary(lease);
      if (result === "crossed") return;
      if (result === "cancel_requested") {
        const stop = new AttemptStop("cancelled", "The operation was cancelled before its first change.");
        controller.abort(stop);
        throw stop;
      }
      keeper.noteLost(result === "lease_expired" ? "expired" : "taken");
      throw stopReason(controller.signal);
    },
    onProgress: (progress) => deps.onEvent?.({ kind: "progress", operationId: operation.operationId, progress }),
  };

  let outcome: AttemptOutcome | "abandoned";
  try {
    outcome = await Promise.race([deps.execute(task, context), abandoned]);
  } catch (error) {
    // The executor contract is to always return a receipt; a throw is errand's own fault.
    const message = `The executor failed instead of returning a receipt: ${errorMessage(error)}`;
    outcome = {
      receipt: synthesize(operation, task, { kind: "stopped", code: "internal_error" }, "internal_error", message, startedAt, provider),
      ephemeral: { ephemeral: true, outputs: {} },
    };
  } finally {
    clearTimeout(overrun);
    clearTimeout(abandonTimer);
  }
  if (outcome === "abandoned") {
    keeper.stop();
    // Nothing of this attempt is written: its lease runs out and recovery decides (UNCERTAIN for a write past its boundary).
    deps.onEvent?.({ kind: "abandoned", operationId: operation.operationId, attempt });
    const next = (await wantsNext()) ? await store.claimNext(deps.runnerId, config.leaseMs, deps.onlyOperationId) : undefined;
    return { report: { operationId: operation.operationId, attempt, outcome: "abandoned", phase: null, status: null }, next };
  }
  // The lease is still renewed while the outcome is kept and resolved: on a starved machine that can
  // take longer than what is left of the lease.
  try {
    // Renewals go on between the resolution's store calls, never beside one (LeaseKeeper.exclusive).
    const alone = <T>(work: () => Promise<T>): Promise<T> => keeper.exclusive(work);
    return await resolveOutcome(
      deps,
      claimed,
      keeper.lost,
      stoppedForTime(controller.signal, outcome),
      task,
      (resolve) => alone(() => finish(resolve)),
      () => alone(wantsNext),
      alone,
    );
  } finally {
    keeper.stop();
  }
}

/** Keeps what the attempt produced and resolves it, fenced by its lease token (see runAttempt). */
async function resolveOutcome(
  deps: RunnerDeps,
  claimed: ClaimedOperation,
  loss: LeaseLoss | undefined,
  outcome: AttemptOutcome,
  task: Task,
  finish: (resolve: (current: OperationRecord) => AttemptResolution) => Promise<FinishResult>,
  wantsNext: WantsNext,
  alone: <T>(work: () => Promise<T>) => Promise<T>,
): Promise<AttemptRun> {
  const { operation, attempt } = claimed;
  if (loss === "expired") {
    // Alive but starved: the lease ran out before a renewal, and the store refused to extend it. The
    // token still holds the row unless someone recovered it since, so the runner ends the attempt
    // as recovery would, and says why. It resolves before it asks for more work, since asking may
    // run this process's own lease recovery, which would take the expired lease without knowing why.
    const { applied } = await alone(() =>
      deps.store.finishAttempt(claimed.lease, (current) => decideExpiredLease({ operation: current, taskJson: claimed.taskJson }, new Date(), "own_runner")),
    );
    const next = (await wantsNext()) ? await alone(() => deps.store.claimNext(deps.runnerId, deps.config.leaseMs, deps.onlyOperationId)) : undefined;
    const phase = applied === undefined ? null : applied.kind === "requeue" ? "queued" : applied.phase;
    deps.onEvent?.({ kind: "lease_lost", operationId: operation.operationId, attempt, loss: applied === undefined ? "taken" : "expired", phase });
    return { report: { ...lost(claimed), phase, status: applied?.kind === "finish" ? applied.receipt.status : null }, next };
  }
  if (loss === "taken") {
    deps.onEvent?.({ kind: "lease_lost", operationId: operation.operationId, attempt, loss, phase: null });
    const next = (await wantsNext()) ? await alone(() => deps.store.claimNext(deps.runnerId, deps.config.leaseMs, deps.onlyOperationId)) : undefined;
    return { report: lost(claimed), next };
  }
  let finalOutcome = outcome;

  if (deps.holdResult !== undefined && hasValues(finalOutcome.ephemeral)) {
    try {
      await deps.holdResult(operation.operationId, operation.requestDigest, attempt, finalOutcome.ephemeral);
    } catch (error) {
      deps.onEvent?.({
        kind: "store_error",
        operationId: operation.operationId,
        message: `The extracted values could not be held for collect: ${errorMessage(error)}`,
      });
    }
  }
  const artifacts = finalOutcome.artifacts ?? [];
  if (deps.keepArtifacts === undefined && artifacts.length > 0) {
    finalOutcome = {
      ...finalOutcome,
      receipt: {
        ...finalOutcome.receipt,
        artifactsOmitted: "This errand was put together without an artifact store; the receipt lists each artifact's hash, the bytes were not kept.",
      },
    };
  } else if (deps.keepArtifacts !== undefined && artifacts.length > 0) {
    try {
      await deps.keepArtifacts(operation.operationId, operation.requestDigest, attempt, task.evidenceRetention, artifacts);
    } catch (error) {
      const message = `The artifacts could not be kept: ${errorMessage(error)}`;
      deps.onEvent?.({ kind: "store_error", operationId: operation.operationId, message });
      finalOutcome = { ...finalOutcome, receipt: { ...finalOutcome.receipt, artifactsOmitted: message } };
    }
  }
  const { applied, next } = await finish((current) =>
    decideAttempt({ operation: current, receipt: finalOutcome.receipt, retention: task.evidenceRetention, retryDelayMs: deps.config.retryDelayMs }),
  );
  if (applied === undefined) {
    deps.onEvent?.({ kind: "lease_lost", operationId: operation.operationId, attempt, loss: "taken", phase: null });
    return { report: lost(claimed), next };
  }
  return { report: reportApplied(deps, operation.operationId, attempt, applied), next };
}

function lost(claimed: ClaimedOperation): AttemptReport {
  return { operationId: claimed.operation.operationId, attempt: claimed.attempt, outcome: "lease_lost", phase: null, status: null };
}

function hasValues(ephemeral: EphemeralEvidence): boolean {
  return Object.keys(ephemeral.outputs).length > 0 || ephemeral.providerSessionId !== undefined;
}

function reportApplied(deps: RunnerDeps, operationId: string, attempt: number, applied: AttemptResolution): AttemptReport {
  if (applied.kind === "requeue") {
    deps.onEvent?.({ kind: "requeued", operationId, attempt, delayMs: applied.delayMs });
    return { operationId, attempt, outcome: "requeued", phase: "queued", status: null };
  }
  deps.onEvent?.({ kind: "finished", operationId, attempt, phase: applied.phase, status: applied.receipt.status, provider: applied.receipt.provider });
  return { operationId, attempt, outcome: "finished", phase: applied.phase, status: applied.receipt.status };
}

/** Ends an attempt that never reached the executor (a stored task that fails its digest) with a receipt errand writes itself. */
async function finishWithout(
  deps: RunnerDeps,
  claimed: ClaimedOperation,
  finish: (resolve: (current: OperationRecord) => AttemptResolution) => Promise<FinishResult>,
  task: Task | null,
  end: AttemptEnd,
  code: ErrorCode,
  message: string,
  startedAt: Date,
  provider = "",
): Promise<AttemptRun> {
  const { applied, next } = await finish((current) => {
    const receipt = synthesize(current, task, end, code, message, startedAt, provider);
    return { kind: "finish", phase: phaseForStatus(receipt.status), receipt, reason: code };
  });
  if (applied === undefined) {
    deps.onEvent?.({ kind: "lease_lost", operationId: claimed.operation.operationId, attempt: claimed.attempt, loss: "taken", phase: null });
    return { report: lost(claimed), next };
  }
  return { report: reportApplied(deps, claimed.operation.operationId, claimed.attempt, applied), next };
}

function synthesize(
  operation: OperationRecord,
  task: Task | null,
  end: AttemptEnd,
  code: ErrorCode,
  message: string,
  startedAt: Date,
  provider: string,
): Receipt {
  return synthesizeReceipt({
    operationId: operation.operationId,
    requestDigest: operation.requestDigest,
    task,
    risk: operation.risk,
    end,
    error: { code, message },
    attempts: operation.attempts,
    mutationBoundary: operation.mutationBoundary,
    provider,
    steps: "skipped",
    startedAt,
  });
}

/**
 * An executor reports any abort of its signal as "cancelled"; when the runner aborted it for time,
 * the receipt says so instead, so the attempt is a timeout (retried for a read) and not a cancel.
 */
function stoppedForTime(signal: AbortSignal, outcome: AttemptOutcome): AttemptOutcome {
  const reason: unknown = signal.reason;
  if (!(reason instanceof AttemptStop) || reason.reason !== "timeout" || outcome.receipt.error?.code !== "cancelled") return outcome;
  return { ...outcome, receipt: { ...outcome.receipt, error: { ...outcome.receipt.error, code: "timeout", message: reason.message } } };
}

function stopReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new AttemptStop("cancelled", "The attempt was stopped.");
}
