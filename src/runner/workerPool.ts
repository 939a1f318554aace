import { collectRefusals, recoverExpiredLeases } from "./runQueue.js";
import type { IntegrityRefusal } from "../store/Store.js";
import { runAttempt } from "./runAttempt.js";
import type { RunnerDeps } from "./runnerTypes.js";

export interface WorkerPoolOptions {
  deps: RunnerDeps;
  /** Attempts run at once (ERRAND_CONCURRENCY); each worker runs one attempt at a time. */
  concurrency: number;
  /**
   * Longest pause of an idle worker before it looks at the store again (ms). Work submitted in this
   * process wakes the pool at once (wake()); this bound is for work other processes submit.
   */
  idlePollMs?: number;
  /** Chores done with lease recovery (at start, then about every heartbeat period): expiring approvals, dropping held results. */
  housekeeping?: () => Promise<void>;
  /** A failure of the store or of housekeeping; the worker pauses one idle period and carries on. */
  onError?: (error: unknown) => void;
}

/**
 * A pool of workers that claim and run operations on their own. States:
 *   RUNNING ──close──> STOPPING (no new claim; running attempts finish) ──all idle or grace spent──> STOPPED
 * Each worker loops: recover expired leases when due → claim → run (the next claim shares the
 * resolution's transaction) → when nothing is eligible, sleep until woken (wake()), until the
 * earliest delayed retry falls due, or idlePollMs, whichever comes first.
 */
export interface WorkerPool {
  /** Something became eligible (a submit, an approval, a reopened operation): idle workers look now. */
  wake(): void;
  /** Attempts running now. */
  readonly active: number;
  /**
   * Resolves true once no attempt runs and nothing queued is eligible now (work due later does not
   * count), or false after timeoutMs. For the compatibility queue-running route and tool.
   */
  settle(timeoutMs: number): Promise<boolean>;
  /**
   * Stops claiming, wakes idle workers so they exit, and waits for running attempts up to graceMs.
   * Resolves with how many attempts were still running when it gave up waiting (their leases expire
   * and the next runner's recovery decides).
   */
  close(graceMs: number): Promise<{ unfinished: number }>;
}

const DEFAULT_IDLE_POLL_MS = 1_000;
/** How often settle() looks whether the pool is idle (ms). */
const SETTLE_LOOK_MS = 100;

export function startWorkerPool(options: WorkerPoolOptions): WorkerPool {
  const { deps } = options;
  const idlePollMs = options.idlePollMs ?? DEFAULT_IDLE_POLL_MS;
  let stopping = false;
  let wakes = 0;
  let active = 0;
  const sleepers = new Set<() => void>();
  let lastHousekeeping = Number.NEGATIVE_INFINITY;
  let housekeeping: Promise<void> | undefined;
  /** Operations the store refused to claim (row and journal disagree), each reported once. */
  const refused: IntegrityRefusal[] = [];

  /** Recovery and chores, at most once per heartbeat period across all workers. */
  const keepHouse = async (): Promise<void> => {
    if (Date.now() - lastHousekeeping < deps.config.heartbeatMs) return;
    housekeeping ??= (async () => {
      try {
        await recoverExpiredLeases(deps);
        await options.housekeeping?.();
        lastHousekeeping = Date.now();
      } finally {
        housekeeping = undefined;
      }
    })();
    await housekeeping;
  };

  const wantsNext = async (): Promise<boolean> => {
    if (stopping) return false;
    await keepHouse();
    return !stopping;
  };

  const sleep = async (seenWakes: number): Promise<void> => {
    if (stopping || wakes !== seenWakes) return;
    let waitMs = idlePollMs;
    try {
      const [now, due] = await Promise.all([deps.store.now(), deps.store.nextQueuedMs()]);
      // A queued operation already due that the claim did not take (another runner's, or one the
      // store refused as tampered) is not a reason to look again at once: only a future due time is.
      if (due !== null && due > now) waitMs = Math.min(waitMs, due - now);
    } catch (error) {
      options.onError?.(error);
    }
    if (stopping || wakes !== seenWakes) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, waitMs);
      sleepers.add(done);
    });
  };

  const work = async (): Promise<void> => {
    while (!stopping) {
      const seenWakes = wakes;
      try {
        await keepHouse();
        let claimed = stopping ? undefined : await deps.store.claimNext(deps.runnerId, deps.config.leaseMs);
        collectRefusals(deps, refused);
        while (claimed !== undefined) {
          deps.onEvent?.({ kind: "claimed", operationId: claimed.operation.operationId, attempt: claimed.attempt });
          active += 1;
          try {
            claimed = (await runAttempt(deps, claimed, wantsNext)).next;
            collectRefusals(deps, refused);
          } finally {
            active -= 1;
          }
        }
      } catch (error) {
        options.onError?.(error);
        // A failing store is not hammered: wait a full idle period (or a wake) before trying again.
        await sleep(wakes);
        continue;
      }
      await sleep(seenWakes);
    }
  };

  const workers = Array.from({ length: Math.max(1, options.concurrency) }, () => work());
  const all = Promise.all(workers).then(() => undefined);

  return {
    wake() {
      wakes += 1;
      for (const wakeOne of [...sleepers]) wakeOne();
    },
    get active() {
      return active;
    },
    async settle(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (active === 0) {
          const [now, due] = await Promise.all([deps.store.now(), deps.store.nextQueuedMs()]);
          if (active === 0 && (due === null || due > now)) return true;
        }
        if (Date.now() >= deadline) return false;
        await new Promise((resolve) => setTimeout(resolve, Math.min(SETTLE_LOOK_MS, Math.max(0, deadline - Date.now()))));
      }
    },
    async close(graceMs) {
      stopping = true;
      for (const wakeOne of [...sleepers]) wakeOne();
      let timer: NodeJS.Timeout | undefined;
      const gaveUp = await Promise.race([
        all.then(() => false),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(true), graceMs);
        }),
      ]);
      clearTimeout(timer);
      return { unfinished: gaveUp ? active : 0 };
    },
  };
}
