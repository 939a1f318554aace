import { MINUTE } from "../config/units.js";
import type { Store } from "../store/Store.js";

/** How often a long-running worker pool writes a journal checkpoint (docs/SECURITY.md, "Per-operation chains and checkpoints"). */
export const JOURNAL_CHECKPOINT_INTERVAL_MS = 10 * MINUTE;

/**
 * A journal checkpoint at most once per `intervalMs`, for the worker pool's housekeeping, so the
 * window in which deleting or rolling back an operation leaves no trace is bounded by the interval
 * even when nobody runs `journal verify`. The checkpoint itself refuses to move backward (a regressed
 * operation throws CheckpointRefusedError, which the pool reports), so the schedule never blesses
 * tampering; the next attempt waits a whole interval either way.
 */
export function createCheckpointSchedule(
  store: Pick<Store, "writeCheckpoint">,
  intervalMs = JOURNAL_CHECKPOINT_INTERVAL_MS,
  now: () => number = Date.now,
): () => Promise<void> {
  let last = now();
  return async () => {
    if (now() - last < intervalMs) return;
    last = now();
    await store.writeCheckpoint();
  };
}
