import type { LibsqlClientLike, LibsqlResult, LibsqlStatement, LibsqlValue } from "./LibsqlClientLike.js";
import { statement } from "./LibsqlClientLike.js";

/**
 * The writes a store operation decided on, with the guards that must hold for them to apply: each
 * guard states a condition on what the decision was made from (a row's revision and chain head, a
 * lease, the journal head, a breaker's revision) and fails the whole batch, which then rolls back,
 * when that has changed since it was read. This is how a read, a decision in JavaScript and a write
 * stay one atomic step on a client that offers no interactive transaction.
 */
export interface GuardedWrite {
  guards: LibsqlStatement[];
  writes: LibsqlStatement[];
}

/** The guards of every part first, then their writes in order. */
export function joinWrites(...parts: GuardedWrite[]): GuardedWrite {
  return { guards: parts.flatMap((p) => p.guards), writes: parts.flatMap((p) => p.writes) };
}

/**
 * A guard: inserts the truth of `condition` (an SQL expression, 1 or 0) into batch_guard, whose CHECK
 * refuses 0. Conditions are written with EXISTS / comparisons so they yield exactly 1 or 0.
 */
export function guard(condition: string, ...args: LibsqlValue[]): LibsqlStatement {
  return statement(`INSERT INTO batch_guard (ok) SELECT (${condition})`, ...args);
}

const CLEAR_GUARDS = statement("DELETE FROM batch_guard");

/** The name of the CHECK a failing guard violates; every transport's error message carries it. */
const GUARD_CONSTRAINT = "batch_guard_holds";

/** What was read changed before the write applied: nothing was written, the caller reads and decides again. */
export class BatchConflict extends Error {
  constructor(readonly what: string) {
    super(`${what}: what it was decided from changed before it was written`);
  }
}

/** Whether a batch failed on one of its guards (and not on anything else). */
export function isGuardFailure(error: unknown): boolean {
  return error instanceof Error && error.message.includes(GUARD_CONSTRAINT);
}

/**
 * Runs the guards, then the writes, then empties batch_guard, as one write batch. Resolves with the
 * writes' results (in order); throws BatchConflict when a guard failed (nothing was written).
 */
export async function applyGuarded(client: LibsqlClientLike, what: string, write: GuardedWrite): Promise<LibsqlResult[]> {
  try {
    const results = await client.batch([...write.guards, ...write.writes, CLEAR_GUARDS], "write");
    return results.slice(write.guards.length, write.guards.length + write.writes.length);
  } catch (error) {
    if (isGuardFailure(error)) throw new BatchConflict(what);
    throw error;
  }
}
