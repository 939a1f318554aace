import { StoreBusyError } from "../storeErrors.js";
import { BatchConflict } from "./batchGuard.js";
import type { LibsqlContext } from "./libsqlContext.js";

const BUSY_MARKERS = ["SQLITE_BUSY", "SQLITE_LOCKED", "database is locked"];

/** Whether the database refused the statement because another connection held its lock. */
export function isBusy(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = "code" in error && typeof error.code === "string" ? error.code : "";
  return BUSY_MARKERS.some((marker) => code.startsWith(marker) || error.message.includes(marker));
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs one read-decide-write round of a store operation (`round` reads, decides in JavaScript and
 * applies with one guarded batch, applyGuarded) and runs it again from the start when its guard
 * failed (someone changed what it read) or the database was locked, with a short randomized pause
 * that grows with each round, so two writers chasing the same row do not keep colliding. Gives up
 * with StoreBusyError once `ctx.busyPatienceMs` has passed.
 */
export async function optimisticWrite<T>(ctx: LibsqlContext, what: string, round: () => Promise<T>): Promise<T> {
  const started = Date.now();
  let conflicts = 0;
  for (let n = 0; ; n += 1) {
    try {
      return await round();
    } catch (error) {
      const conflict = error instanceof BatchConflict;
      if (!conflict && !isBusy(error)) throw error;
      if (conflict) conflicts += 1;
      const waited = Date.now() - started;
      if (waited > ctx.busyPatienceMs) {
        throw new StoreBusyError(
          `${what} did not get through in ${waited} ms (${conflicts} concurrent changes to what it read, ${n + 1 - conflicts} times the database was locked); other errand processes are writing the same rows.`,
        );
      }
      // The first retry after a conflict is immediate: the other writer has already committed.
      if (n > 0 || !conflict) await pause(Math.min(200, 2 * 2 ** Math.min(n, 7)) * (0.5 + Math.random()));
    }
  }
}
