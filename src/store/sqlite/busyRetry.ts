import { setTimeout as sleep } from "node:timers/promises";
import { StoreBusyError } from "../storeErrors.js";

const BUSY_CODES = new Set(["SQLITE_BUSY", "SQLITE_BUSY_SNAPSHOT", "SQLITE_BUSY_RECOVERY", "SQLITE_LOCKED"]);

function isBusy(error: unknown): boolean {
  return error instanceof Error && "code" in error && typeof error.code === "string" && BUSY_CODES.has(error.code);
}

/**
 * Runs a synchronous database step, and when another process holds the write lock past the short
 * busy timeout, retries it after an asynchronous pause. The connection's own busy wait blocks the
 * event loop, so it is kept short; the waiting happens here, where timers (heartbeats) keep running.
 */
export async function busyRetry<T>(step: () => T, patienceMs: number): Promise<T> {
  const started = Date.now();
  for (let round = 0; ; round += 1) {
    try {
      return step();
    } catch (error) {
      if (!isBusy(error)) throw error;
      if (Date.now() - started > patienceMs) {
        throw new StoreBusyError(`The database stayed locked for ${Date.now() - started} ms; another errand process is holding it.`);
      }
      await sleep(Math.min(200, 5 * 2 ** Math.min(round, 6)) * (0.5 + Math.random()));
    }
  }
}
