import type { LockoutRecord, LockoutTransition } from "../../../AccessStore.js";
import type { LockoutRow } from "../../../rows/accessRows.js";
import { toLockout } from "../../../rows/accessRows.js";
import type { SqliteContext } from "../../sqliteContext.js";
import { journalAuthChange } from "./authEvent.js";

const FRESH: LockoutRecord = { failures: 0, lockouts: 0, lockedUntilMs: null, lastFailureMs: null };

/** The lockout record of one client address; an address never seen has a fresh one. */
export function selectOwnerLockout(ctx: SqliteContext, address: string): LockoutRecord {
  const row = ctx.sql("SELECT failures, lockouts, locked_until_ms, last_failure_ms FROM owner_lockouts WHERE address = ?").get(address) as
    LockoutRow | undefined;
  return row === undefined ? FRESH : toLockout(row);
}

/** Runs inside BEGIN IMMEDIATE: read, transition, write, journal, as one step. */
export function updateOwnerLockout<T>(ctx: SqliteContext, address: string, transition: (record: LockoutRecord, nowMs: number) => LockoutTransition<T>): T {
  const now = ctx.clock();
  const { next, result, change } = transition(selectOwnerLockout(ctx, address), now);
  if (next === null) {
    ctx.sql("DELETE FROM owner_lockouts WHERE address = ?").run(address);
  } else {
    ctx
      .sql(
        `INSERT INTO owner_lockouts (address, failures, lockouts, locked_until_ms, last_failure_ms, updated_ms) VALUES (@address, @failures, @lockouts, @lockedUntilMs, @lastFailureMs, @now)
         ON CONFLICT (address) DO UPDATE SET failures = excluded.failures, lockouts = excluded.lockouts, locked_until_ms = excluded.locked_until_ms,
           last_failure_ms = excluded.last_failure_ms, updated_ms = excluded.updated_ms`,
      )
      .run({ address, ...next, now });
  }
  if (change !== undefined) journalAuthChange(ctx, typeof change["change"] === "string" ? change["change"] : "owner_lockout", { ...change, address }, now);
  return result;
}

/** errand owner unlock: forgets one address's lockout, or every one. */
export function clearOwnerLockouts(ctx: SqliteContext, address: string | undefined): number {
  const removed = (address === undefined ? ctx.sql("DELETE FROM owner_lockouts").run() : ctx.sql("DELETE FROM owner_lockouts WHERE address = ?").run(address))
    .changes;
  journalAuthChange(ctx, "owner_unlocked", { address: address ?? "all", removed }, ctx.clock());
  return removed;
}
