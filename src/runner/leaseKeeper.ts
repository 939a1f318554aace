import type { LeaseRef, Store } from "../store/Store.js";
import { AttemptStop } from "./attemptStop.js";

export interface LeaseKeeper {
  /** The lease was found to belong to no one or to someone else: nothing of this attempt may be written. */
  readonly lost: boolean;
  /** A cancel request was seen. */
  readonly cancelRequested: boolean;
  /** Stops heartbeats and polls (the lease then expires unless the attempt is finished). */
  stop(): void;
}

export interface LeaseKeeperOptions {
  leaseMs: number;
  heartbeatMs: number;
  cancelPollMs: number;
  /** Aborted with an AttemptStop when the lease is lost or a cancel is requested. */
  controller: AbortController;
  onStoreError?: (message: string) => void;
}

/**
 * Keeps an attempt's lease alive: renews it every heartbeatMs (a third of the lease, so two missed
 * heartbeats are survivable) and reads the cancel flag every cancelPollMs. A store that is briefly
 * busy is not a lost lease; a renewal that finds another token (or none) is.
 */
export function startLeaseKeeper(store: Store, lease: LeaseRef, options: LeaseKeeperOptions): LeaseKeeper {
  let lost = false;
  let cancelRequested = false;
  let stopped = false;
  let inFlight = false;

  const observe = (check: { held: boolean; cancelRequested: boolean }): void => {
    if (stopped) return;
    if (!check.held) {
      lost = true;
      options.controller.abort(new AttemptStop("lease_lost", "This runner no longer holds the operation's lease."));
      return;
    }
    if (check.cancelRequested && !cancelRequested) {
      cancelRequested = true;
      options.controller.abort(new AttemptStop("cancelled", "The operation was cancelled."));
    }
  };
  const tick = (step: () => Promise<{ held: boolean; cancelRequested: boolean }>) => () => {
    if (stopped || inFlight) return;
    inFlight = true;
    step()
      .then(observe)
      .catch((error: unknown) => options.onStoreError?.(error instanceof Error ? error.message : String(error)))
      .finally(() => {
        inFlight = false;
      });
  };

  const heartbeat = setInterval(tick(() => store.renewLease(lease, options.leaseMs)), options.heartbeatMs);
  const poll = setInterval(tick(() => store.checkLease(lease)), options.cancelPollMs);
  return {
    get lost() {
      return lost;
    },
    get cancelRequested() {
      return cancelRequested;
    },
    stop() {
      stopped = true;
      clearInterval(heartbeat);
      clearInterval(poll);
    },
  };
}
