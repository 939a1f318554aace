import type { UsageEntry } from "../../../ProviderStore.js";
import type { SqliteContext } from "../../sqliteContext.js";

/** Books one attempt's measured usage. */
export function insertUsage(ctx: SqliteContext, entry: UsageEntry): void {
  ctx
    .sql(
      `INSERT INTO provider_usage (provider, operation_id, attempt, session_ms, unit, amount, usd, estimate, source, recorded_ms)
       VALUES (@provider, @operationId, @attempt, @sessionMs, @unit, @amount, @usd, @estimate, 'measured', @now)`,
    )
    .run({ ...entry, estimate: entry.estimate ? 1 : 0, now: ctx.clock() });
}

/** Books the reservation of a slot whose holder never released it: the most that session may have cost. */
export function bookExpiredSlot(ctx: SqliteContext, provider: string, unit: string, reserved: number, heldMs: number, now: number): void {
  ctx
    .sql(
      `INSERT INTO provider_usage (provider, operation_id, attempt, session_ms, unit, amount, usd, estimate, source, recorded_ms)
       VALUES (?, NULL, NULL, ?, ?, ?, NULL, 1, 'slot_expired', ?)`,
    )
    .run(provider, Math.max(0, heldMs), unit, reserved, now);
}

/** Usage booked for a provider since a time: entries, session time, amount and dollars. */
export function sumUsageSince(
  ctx: SqliteContext,
  provider: string,
  sinceMs: number,
): { sessions: number; sessionMs: number; amount: number; usd: number | null } {
  const row = ctx
    .sql(
      "SELECT count(*) AS sessions, coalesce(sum(session_ms), 0) AS session_ms, coalesce(sum(amount), 0) AS amount, sum(usd) AS usd FROM provider_usage WHERE provider = ? AND recorded_ms >= ?",
    )
    .get(provider, sinceMs) as { sessions: number; session_ms: number; amount: number; usd: number | null };
  return { sessions: row.sessions, sessionMs: row.session_ms, amount: row.amount, usd: row.usd };
}
