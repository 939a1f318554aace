import type { LockoutRecord } from "../../../AccessStore.js";
import type { LockoutRow } from "../../accessRows.js";
import { toLockout } from "../../accessRows.js";
import type { SqliteContext } from "../../sqliteContext.js";
import { journalAuthChange } from "./authEvent.js";

/** The lockout record; never written means no failures and revision 0. */
export function selectLockout(ctx: SqliteContext): LockoutRecord {
  const row = ctx.sql("SELECT failures, lockouts, locked_until_ms, last_failure_ms, revision FROM consent_lockout WHERE id = 1").get() as LockoutRow | undefined;
  return row === undefined ? { failures: 0, lockouts: 0, lockedUntilMs: null, lastFailureMs: null, revision: 0 } : toLockout(row);
}

/** Compare-and-set on the revision, so two concurrent consent posts cannot both count as the first failure. */
export function writeLockout(ctx: SqliteContext, next: LockoutRecord, expectedRevision: number, change?: Record<string, unknown>): boolean {
  if (selectLockout(ctx).revision !== expectedRevision) return false;
  ctx
    .sql(
      `INSERT INTO consent_lockout (id, failures, lockouts, locked_until_ms, last_failure_ms, revision) VALUES (1, @failures, @lockouts, @lockedUntilMs, @lastFailureMs, @revision)
       ON CONFLICT (id) DO UPDATE SET failures = excluded.failures, lockouts = excluded.lockouts, locked_until_ms = excluded.locked_until_ms,
         last_failure_ms = excluded.last_failure_ms, revision = excluded.revision`,
    )
    .run({ ...next, revision: expectedRevision + 1 });
  if (change !== undefined) journalAuthChange(ctx, typeof change["change"] === "string" ? change["change"] : "consent_lockout", change, ctx.clock());
  return true;
}
