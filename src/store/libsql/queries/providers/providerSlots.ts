import type { SlotGrant, SlotRequest, UsageEntry, UsageTotals } from "../../../ProviderStore.js";
import { applyGuarded, guard } from "../../batchGuard.js";
import type { LibsqlContext } from "../../libsqlContext.js";
import type { LibsqlStatement } from "../../LibsqlClientLike.js";
import { statement } from "../../LibsqlClientLike.js";
import { firstRowIn, rowsIn } from "../../libsqlRows.js";
import { optimisticWrite } from "../../optimisticWrite.js";

interface SlotRow {
  slot_id: string;
  provider: string;
  unit: string;
  reserved: number;
  acquired_ms: number;
  expires_ms: number;
}

interface SlotSummary {
  slots: number;
  reserved: number;
  live: number;
  live_reserved: number;
  first: number | null;
}

const slotSummary = (provider: string, now: number) =>
  statement(
    `SELECT count(*) AS slots, coalesce(sum(reserved), 0) AS reserved,
       count(CASE WHEN expires_ms > ? THEN 1 END) AS live, coalesce(sum(CASE WHEN expires_ms > ? THEN reserved END), 0) AS live_reserved,
       min(CASE WHEN expires_ms > ? THEN expires_ms END) AS first
     FROM provider_slots WHERE provider = ?`,
    now,
    now,
    now,
    provider,
  );

const usageSince = (provider: string, sinceMs: number) =>
  statement(
    "SELECT count(*) AS sessions, coalesce(sum(session_ms), 0) AS session_ms, coalesce(sum(amount), 0) AS amount, sum(usd) AS usd FROM provider_usage WHERE provider = ? AND recorded_ms >= ?",
    provider,
    sinceMs,
  );

/** Books the reservation of a slot whose holder never released it: the most that session may have cost. */
function bookExpiredSlot(slot: SlotRow, now: number): LibsqlStatement {
  return statement(
    "INSERT INTO provider_usage (provider, operation_id, attempt, session_ms, unit, amount, usd, estimate, source, recorded_ms) VALUES (?, NULL, NULL, ?, ?, ?, NULL, 1, 'slot_expired', ?)",
    slot.provider,
    Math.max(0, slot.expires_ms - slot.acquired_ms),
    slot.unit,
    slot.reserved,
    now,
  );
}

/**
 * Books and removes the provider's expired slots, then grants a slot only when fewer than `cap` are
 * live and booked usage + live reservations + this reservation stay within the budget. Decided on one
 * snapshot and written in one batch guarded on the provider's slots and usage as read (and on each
 * expired slot still being there, so none is booked twice), so two runners cannot both take the last
 * slot or the last of the budget.
 */
export function acquireSlot(ctx: LibsqlContext, request: SlotRequest): Promise<SlotGrant> {
  const provider = request.provider;
  return optimisticWrite(ctx, `acquiring a slot of ${provider}`, async (): Promise<SlotGrant> => {
    const now = ctx.clock();
    const sinceMs = request.budget?.sinceMs ?? now;
    const [expiredResult, summaryResult, usageResult] = await ctx.client.batch(
      [
        statement(
          "SELECT slot_id, provider, unit, reserved, acquired_ms, expires_ms FROM provider_slots WHERE provider = ? AND expires_ms <= ?",
          provider,
          now,
        ),
        slotSummary(provider, now),
        usageSince(provider, sinceMs),
      ],
      "read",
    );
    const expired = rowsIn<SlotRow>(expiredResult);
    const summary = firstRowIn<SlotSummary>(summaryResult) ?? { slots: 0, reserved: 0, live: 0, live_reserved: 0, first: null };
    const booked = firstRowIn<{ amount: number }>(usageResult)?.amount ?? 0;
    if (summary.live >= request.cap) return { kind: "at_cap", live: summary.live, freeAtMs: summary.first };
    // The expired slots are booked in this batch: their reservations count as usage from here on.
    const used = booked + expired.reduce((sum, slot) => sum + slot.reserved, 0);
    if (request.budget !== null && used + summary.live_reserved + request.reserve > request.budget.limit)
      return { kind: "over_budget", used, reserved: summary.live_reserved, limit: request.budget.limit };
    const slotId = crypto.randomUUID();
    await applyGuarded(ctx.client, `acquiring a slot of ${provider}`, {
      guards: [
        guard(
          `(SELECT count(*) FROM provider_slots WHERE provider = ?) = ? AND (SELECT coalesce(sum(reserved), 0) FROM provider_slots WHERE provider = ?) = ?
           AND (SELECT coalesce(sum(amount), 0) FROM provider_usage WHERE provider = ? AND recorded_ms >= ?) = ?`,
          provider,
          summary.slots,
          provider,
          summary.reserved,
          provider,
          sinceMs,
          booked,
        ),
        ...expired.map((slot) => guard("EXISTS (SELECT 1 FROM provider_slots WHERE slot_id = ?)", slot.slot_id)),
      ],
      writes: [
        ...expired.flatMap((slot) => [bookExpiredSlot(slot, now), statement("DELETE FROM provider_slots WHERE slot_id = ?", slot.slot_id)]),
        statement(
          "INSERT INTO provider_slots (slot_id, provider, holder, operation_id, unit, reserved, acquired_ms, expires_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
          slotId,
          provider,
          request.holder,
          request.operationId,
          request.unit,
          request.reserve,
          now,
          request.expiresMs,
        ),
      ],
    });
    return { kind: "acquired", slotId };
  });
}

/**
 * Frees a slot and books the attempt's measured usage, in one batch: the usage is inserted only when
 * the DELETE removed the slot (changes()), since a slot that expired and was booked by another runner
 * already stands for this session at its reservation.
 */
export async function releaseSlot(ctx: LibsqlContext, slotId: string, usage: UsageEntry | null): Promise<void> {
  const free = statement("DELETE FROM provider_slots WHERE slot_id = ?", slotId);
  if (usage === null) {
    await ctx.client.execute(free);
    return;
  }
  await ctx.client.batch(
    [
      free,
      statement(
        `INSERT INTO provider_usage (provider, operation_id, attempt, session_ms, unit, amount, usd, estimate, source, recorded_ms)
         SELECT ?, ?, ?, ?, ?, ?, ?, ?, 'measured', ? WHERE changes() > 0`,
        usage.provider,
        usage.operationId,
        usage.attempt,
        usage.sessionMs,
        usage.unit,
        usage.amount,
        usage.usd,
        usage.estimate ? 1 : 0,
        ctx.clock(),
      ),
    ],
    "write",
  );
}

/** Usage booked since a time, live slots, and what live and not yet booked expired slots reserve, in one snapshot. */
export async function readUsage(ctx: LibsqlContext, provider: string, sinceMs: number): Promise<UsageTotals> {
  const now = ctx.clock();
  const [usageResult, summaryResult] = await ctx.client.batch([usageSince(provider, sinceMs), slotSummary(provider, now)], "read");
  const booked = firstRowIn<{ sessions: number; session_ms: number; amount: number; usd: number | null }>(usageResult);
  const summary = firstRowIn<SlotSummary>(summaryResult);
  return {
    provider,
    sessions: booked?.sessions ?? 0,
    sessionMs: booked?.session_ms ?? 0,
    amount: booked?.amount ?? 0,
    usd: booked?.usd ?? null,
    liveSlots: summary?.live ?? 0,
    reserved: summary?.reserved ?? 0,
    nextSlotExpiryMs: summary?.first ?? null,
  };
}
