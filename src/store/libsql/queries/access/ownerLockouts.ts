import type { LockoutRecord, LockoutTransition } from "../../../AccessStore.js";
import type { LockoutRow } from "../../../rows/accessRows.js";
import { toLockout } from "../../../rows/accessRows.js";
import type { GuardedWrite } from "../../batchGuard.js";
import { applyGuarded, guard, joinWrites } from "../../batchGuard.js";
import { headIn, requireHead, SELECT_HEAD } from "../../journalHead.js";
import type { LibsqlContext } from "../../libsqlContext.js";
import { statement } from "../../LibsqlClientLike.js";
import { firstRowIn, queryRow } from "../../libsqlRows.js";
import { optimisticWrite } from "../../optimisticWrite.js";
import { authChange } from "./authChange.js";

const FRESH: LockoutRecord = { failures: 0, lockouts: 0, lockedUntilMs: null, lastFailureMs: null };

interface StoredLockout extends LockoutRow {
  updated_ms: number;
}

/** The lockout record of one client address; an address never seen has a fresh one. */
export async function readOwnerLockout(ctx: LibsqlContext, address: string): Promise<LockoutRecord> {
  const row = await queryRow<LockoutRow>(
    ctx.client,
    "SELECT failures, lockouts, locked_until_ms, last_failure_ms FROM owner_lockouts WHERE address = ?",
    address,
  );
  return row === undefined ? FRESH : toLockout(row);
}

/**
 * Read, transition, write and journal as one step: the write is guarded on the address's row as read
 * (or its absence), so two failed logins at once are both counted; the transition runs again on the
 * row as it is when they collided.
 */
export function updateOwnerLockout<T>(
  ctx: LibsqlContext,
  address: string,
  transition: (record: LockoutRecord, nowMs: number) => LockoutTransition<T>,
): Promise<T> {
  return optimisticWrite(ctx, `recording an owner login from ${address}`, async () => {
    const [rowResult, headResult] = await ctx.client.batch([statement("SELECT * FROM owner_lockouts WHERE address = ?", address), SELECT_HEAD], "read");
    const row = firstRowIn<StoredLockout>(rowResult);
    const now = ctx.clock();
    const { next, result, change } = transition(row === undefined ? FRESH : toLockout(row), now);
    const unchanged =
      row === undefined
        ? guard("NOT EXISTS (SELECT 1 FROM owner_lockouts WHERE address = ?)", address)
        : guard(
            "EXISTS (SELECT 1 FROM owner_lockouts WHERE address = ? AND failures = ? AND lockouts = ? AND locked_until_ms IS ? AND last_failure_ms IS ? AND updated_ms = ?)",
            address,
            row.failures,
            row.lockouts,
            row.locked_until_ms,
            row.last_failure_ms,
            row.updated_ms,
          );
    const write: GuardedWrite = {
      guards: [unchanged],
      writes: [
        next === null
          ? statement("DELETE FROM owner_lockouts WHERE address = ?", address)
          : statement(
              `INSERT INTO owner_lockouts (address, failures, lockouts, locked_until_ms, last_failure_ms, updated_ms) VALUES (?, ?, ?, ?, ?, ?)
               ON CONFLICT (address) DO UPDATE SET failures = excluded.failures, lockouts = excluded.lockouts, locked_until_ms = excluded.locked_until_ms,
                 last_failure_ms = excluded.last_failure_ms, updated_ms = excluded.updated_ms`,
              address,
              next.failures,
              next.lockouts,
              next.lockedUntilMs,
              next.lastFailureMs,
              now,
            ),
      ],
    };
    const journaled =
      change === undefined
        ? []
        : [
            authChange(
              ctx,
              requireHead(ctx, headIn(headResult)),
              typeof change["change"] === "string" ? change["change"] : "owner_lockout",
              { ...change, address },
              now,
            ),
          ];
    await applyGuarded(ctx.client, `recording an owner login from ${address}`, joinWrites(write, ...journaled));
    return result;
  });
}

/** errand owner unlock: forgets one address's lockout, or every one, and journals how many. */
export function clearOwnerLockouts(ctx: LibsqlContext, address: string | undefined): Promise<number> {
  const which = address === undefined ? { where: "", args: [] } : { where: " WHERE address = ?", args: [address] };
  return optimisticWrite(ctx, "clearing owner lockouts", async () => {
    const [countResult, headResult] = await ctx.client.batch(
      [statement(`SELECT count(*) AS n FROM owner_lockouts${which.where}`, ...which.args), SELECT_HEAD],
      "read",
    );
    const removed = firstRowIn<{ n: number }>(countResult)?.n ?? 0;
    const now = ctx.clock();
    const write: GuardedWrite = {
      guards: [guard(`(SELECT count(*) FROM owner_lockouts${which.where}) = ?`, ...which.args, removed)],
      writes: [statement(`DELETE FROM owner_lockouts${which.where}`, ...which.args)],
    };
    await applyGuarded(
      ctx.client,
      "clearing owner lockouts",
      joinWrites(write, authChange(ctx, requireHead(ctx, headIn(headResult)), "owner_unlocked", { address: address ?? "all", removed }, now)),
    );
    return removed;
  });
}
