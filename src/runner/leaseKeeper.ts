import type { LeaseCheck, LeaseRef, Store } from "../store/Store.js";
import { AttemptStop, leaseLostStop } from "./attemptStop.js";
import type { LeaseLoss } from "./attemptStop.js";

export interface LeaseKeeper {
  /** Set once the lease is known lost (see LeaseLoss): nothing more of this attempt may reach the site. */
  readonly lost: LeaseLoss | undefined;
  /** A cancel request was seen. */
  readonly cancelRequested: boolean;
  /** Records a loss found elsewhere (the boundary crossing), so the attempt is stopped and resolved as one. */
  noteLost(loss: LeaseLoss): void;
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
 * Keeps an attempt's lease alive until stop(). Renewals run on a loop of their own, never behind the
 * cancel poll or the attempt's work: each is sent heartbeatMs after the previous one was sent (so a
 * slow store or a stalled process does not push the next one later), at once when the process
 * resumes after a stall longer than that, and again soon after a store error. Two renewals may be
 * missed before the lease runs out. A renewal or poll that finds the lease expired or taken stops
 * the attempt; a store that is briefly busy is not a lost lease.
 */
export function startLeaseKeeper(store: Store, lease: LeaseRef, options: LeaseKeeperOptions): LeaseKeeper {
  let lost: LeaseLoss | undefined;
  let cancelRequested = false;
  let stopped = false;
  const timers = new Set<NodeJS.Timeout>();

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
  const schedule = (run: () => void, delayMs: number): void => {
    if (stopped || lost !== undefined) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, Math.max(0, delayMs));
    timers.add(timer);
  };
  /** One loop: `ask`, then again `everyMs` after this one was sent (sooner after a store error). */
  const loop = (ask: () => Promise<LeaseCheck>, everyMs: number, afterErrorMs: number): (() => void) => {
    const run = (): void => {
      if (stopped || lost !== undefined) return;
      const sentAt = performance.now();
      ask()
        .then((check) => {
          observe(check);
          schedule(run, sentAt + everyMs - performance.now());
        })
        .catch((error: unknown) => {
          options.onStoreError?.(error instanceof Error ? error.message : String(error));
          schedule(run, afterErrorMs);
        });
    };
    return run;
  };

  schedule(loop(() => store.renewLease(lease, options.leaseMs), options.heartbeatMs, retryMs(options.leaseMs, options.heartbeatMs)), options.heartbeatMs);
  schedule(loop(() => store.checkLease(lease), options.cancelPollMs, options.cancelPollMs), options.cancelPollMs);
  return {
    get lost() {
      return lost;
    },
    get cancelRequested() {
      return cancelRequested;
    },
    noteLost: lose,
    stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}
