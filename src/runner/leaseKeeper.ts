import type { LeaseCheck, LeaseRef, Store } from "../store/Store.js";
import { AttemptStop, leaseLostStop } from "./attemptStop.js";
import type { LeaseLoss } from "./attemptStop.js";
import { errorMessage } from "../errors/errorMessage.js";

export interface LeaseKeeper {
  /** Set once the lease is known lost (see LeaseLoss): nothing more of this attempt may reach the site. */
  readonly lost: LeaseLoss | undefined;
  /** A cancel request was seen. */
  readonly cancelRequested: boolean;
  /** Records a loss found elsewhere (the boundary crossing), so the attempt is stopped and resolved as one. */
  noteLost(loss: LeaseLoss): void;
  /**
   * Runs `work` (the attempt's own store calls) with no renewal or poll beside it: it waits for the
   * one in flight, and the next waits for `work`. So the attempt and its keeper never need two store
   * connections at once, which a store cut off mid-attempt could not open.
   */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
  /** Stops renewals and polls (the lease then expires unless the attempt is finished). */
  stop(): void;
}

export interface LeaseKeeperOptions {
  leaseMs: number;
  /** How long after the last renewal was sent the next one is sent (a third of the lease). */
  heartbeatMs: number;
  cancelPollMs: number;
  /** Aborted with an AttemptStop when the lease is lost or a cancel is requested. */
  controller: AbortController;
  onStoreError?: (message: string) => void;
}

/** Pause before a renewal the store failed is tried again: a tenth of the lease, at least 100 ms. */
function retryMs(leaseMs: number, heartbeatMs: number): number {
  return Math.min(heartbeatMs, Math.max(100, Math.floor(leaseMs / 10)));
}

/**
 * Keeps an attempt's lease alive until stop(). One loop asks the store one thing at a time, so a
 * store that cannot be reached holds at most one connection: a renewal when one is due (heartbeatMs
 * after the previous renewal was sent, so a slow store or a stalled process does not push the next
 * one later; within a tenth of the lease after a store error), else a read of the cancel flag every
 * cancelPollMs. A renewal is never skipped: one that falls due while a cancel poll is in flight
 * goes as soon as that poll returns, and at once when the process resumes after a stall. Two
 * renewals may be missed before the lease runs out. A renewal or poll that finds the lease expired
 * or taken stops the attempt; a store that is briefly busy is not a lost lease.
 */
export function startLeaseKeeper(store: Store, lease: LeaseRef, options: LeaseKeeperOptions): LeaseKeeper {
  let lost: LeaseLoss | undefined;
  let cancelRequested = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;
  let holders = 0;
  let nextRenewalAt = performance.now() + options.heartbeatMs;
  let nextPollAt = performance.now() + options.cancelPollMs;

  const lose = (loss: LeaseLoss): void => {
    if (stopped || lost !== undefined) return;
    lost = loss;
    options.controller.abort(leaseLostStop(loss));
  };
  const observe = (check: LeaseCheck): void => {
    if (stopped) return;
    if (!check.held) {
      lose(check.expired === true ? "expired" : "taken");
      return;
    }
    if (check.cancelRequested && !cancelRequested) {
      cancelRequested = true;
      options.controller.abort(new AttemptStop("cancelled", "The operation was cancelled."));
    }
  };
  const schedule = (): void => {
    if (stopped || lost !== undefined || holders > 0 || inFlight !== undefined) return;
    clearTimeout(timer);
    timer = setTimeout(tick, Math.max(0, Math.min(nextRenewalAt, nextPollAt) - performance.now()));
  };
  const tick = (): void => {
    timer = undefined;
    if (stopped || lost !== undefined || holders > 0) return;
    const sentAt = performance.now();
    const renewal = sentAt >= nextRenewalAt;
    inFlight = (renewal ? store.renewLease(lease, options.leaseMs) : store.checkLease(lease))
      .then((check) => {
        if (renewal) nextRenewalAt = sentAt + options.heartbeatMs;
        observe(check);
      })
      .catch((error: unknown) => {
        options.onStoreError?.(errorMessage(error));
        if (renewal) nextRenewalAt = performance.now() + retryMs(options.leaseMs, options.heartbeatMs);
      })
      .finally(() => {
        // A renewal reports a cancel too, so it counts as a poll.
        nextPollAt = sentAt + options.cancelPollMs;
        inFlight = undefined;
        schedule();
      });
  };

  schedule();
  return {
    get lost() {
      return lost;
    },
    get cancelRequested() {
      return cancelRequested;
    },
    noteLost: lose,
    async exclusive<T>(work: () => Promise<T>): Promise<T> {
      holders += 1;
      clearTimeout(timer);
      timer = undefined;
      try {
        while (inFlight !== undefined) await inFlight;
        return await work();
      } finally {
        holders -= 1;
        schedule();
      }
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
